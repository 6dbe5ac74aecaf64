import { type FactoryProvider, Inject } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { InvalidModuleOptionsError } from '../interview-api.options.js';

/** The DataSource the module keeps its tables in and reads the host resources from. */
export const INTERVIEW_DATA_SOURCE = Symbol('INTERVIEW_DATA_SOURCE');

/** Injects INTERVIEW_DATA_SOURCE: every class of the module reads and writes through it. */
export const InjectInterviewDataSource = (): ParameterDecorator => Inject(INTERVIEW_DATA_SOURCE);

/**
 * INTERVIEW_DATA_SOURCE as the host's DataSource named `name` (`'default'`: its default one). Injected
 * as optional so that a name no TypeOrmModule registered fails the start naming the option, rather
 * than in Nest's words naming a token.
 */
export function interviewDataSourceProvider(name: string): FactoryProvider<DataSource> {
  return {
    provide: INTERVIEW_DATA_SOURCE,
    useFactory: (dataSource: DataSource | undefined): DataSource => {
      if (dataSource !== undefined) return dataSource;
      throw new InvalidModuleOptionsError(
        'dataSource',
        `is "${name}", but no DataSource has that name: give the name of a TypeOrmModule.forRoot({ name }) ` +
          `or forRootAsync({ name }) of the app, or leave the option out for the default DataSource.`,
      );
    },
    inject: [{ token: getDataSourceToken(name), optional: true }],
  };
}
