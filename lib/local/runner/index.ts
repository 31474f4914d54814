/** The local Lambda runner: public surface. */
export {
  type ApiRequest,
  apiGatewayEvent,
  lambdaContext,
  scheduledEvent,
  sqsEvent,
  sqsRecord,
} from './lambda-events.ts';
export {
  FunctionTimeoutError,
  HANDLER_FACTORIES,
  type HandlerFactory,
  type Invocation,
  LocalLambdaRunner,
  type LocalRunnerOptions,
} from './local-runner.ts';
export { SqsEventSource, type SqsEventSourceOptions } from './sqs-event-source.ts';
export {
  type LocalFunction,
  resolveTemplateFunctions,
  type TemplateFunctions,
} from './template-functions.ts';
