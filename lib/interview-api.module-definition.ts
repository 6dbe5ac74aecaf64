import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { InterviewApiModuleOptions, ResourceDefinition } from './interview-api.options.js';

export interface InterviewApiModuleExtras {
  /** The host's own entities exposed under /v1; static because they decide which routes exist. */
  resources: ResourceDefinition[];
}

export const {
  ConfigurableModuleClass: InterviewApiConfigurableModule,
  MODULE_OPTIONS_TOKEN: INTERVIEW_API_MODULE_OPTIONS,
  OPTIONS_TYPE: INTERVIEW_API_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: INTERVIEW_API_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<InterviewApiModuleOptions>({ moduleName: 'InterviewApi' })
  .setClassMethodName('forRoot')
  .setExtras<InterviewApiModuleExtras>({ resources: [] }, (definition) => definition)
  .build();
