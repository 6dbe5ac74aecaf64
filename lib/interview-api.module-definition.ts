import { ConfigurableModuleBuilder } from '@nestjs/common';
import { DEFAULT_OPTIONS } from './interview-api.defaults.js';
import type { InterviewApiModuleOptions, ResourceDefinition } from './interview-api.options.js';

export interface InterviewApiModuleExtras {
  /** The host's own entities exposed under /v1; static because they decide which routes exist. */
  resources: readonly ResourceDefinition[];
  /**
   * As InterviewApiModuleOptions' `dataSource`; static because the module's entities are registered
   * with that DataSource as the module is built.
   */
  dataSource: string;
}

/**
 * The host's resources, each typed by its own entity (E, inferred from the list as written), so
 * that a definition written inline in forRoot names properties of its entity only.
 */
export type ResourceDefinitions<E extends readonly object[]> = { [K in keyof E]: ResourceDefinition<E[K]> };

export const {
  ConfigurableModuleClass: InterviewApiConfigurableModule,
  MODULE_OPTIONS_TOKEN: INTERVIEW_API_MODULE_OPTIONS,
  OPTIONS_TYPE: INTERVIEW_API_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: INTERVIEW_API_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<InterviewApiModuleOptions>({ moduleName: 'InterviewApi' })
  .setClassMethodName('forRoot')
  // Nest leaves extras out of the options forRoot provides: the module reads both from the argument.
  .setExtras<InterviewApiModuleExtras>(
    { resources: [], dataSource: DEFAULT_OPTIONS.dataSource },
    (definition) => definition,
  )
  .build();

/**
 * What `InterviewApiModule.forRoot` takes: `InterviewApiModuleOptions` and the host's `resources`,
 * an extra of the module definition rather than an option since they decide which routes exist.
 */
export type InterviewApiForRootOptions<E extends readonly object[] = object[]> = Omit<
  typeof INTERVIEW_API_OPTIONS_TYPE,
  'resources'
> & { resources?: ResourceDefinitions<E> };

/**
 * What a `forRootAsync` factory returns: the options, without `resources`, which decide the routes
 * before any factory runs, and without `dataSource`, which the entities are registered with then
 * (both go to `forRootAsync` itself; a factory returning either fails the start). `resources` is
 * typed `never` so that returning it fails to compile; `dataSource` is only left out, so that a
 * factory declared to return InterviewApiModuleOptions still compiles.
 */
export type InterviewApiFactoryOptions = Omit<InterviewApiModuleOptions, 'dataSource'> & {
  resources?: never;
};

/**
 * What `InterviewApiModule.forRootAsync` takes: a factory of the options, the `resources` and the
 * `dataSource`.
 */
export type InterviewApiForRootAsyncOptions<E extends readonly object[] = object[]> = Omit<
  typeof INTERVIEW_API_ASYNC_OPTIONS_TYPE,
  'useFactory' | 'resources'
> & {
  // Nest's own factory type: a factory's arguments are whatever its `inject` hands it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory?: (...args: any[]) => InterviewApiFactoryOptions | Promise<InterviewApiFactoryOptions>;
  resources?: ResourceDefinitions<E>;
};
