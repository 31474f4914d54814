/**
 * The REST API: IAM authorisation on every method (the caller's IAM identity is the tenant), one Lambda proxy
 * integration, access logs, execution logs and metrics on the stage, and a request validator for parameters
 * (bodies are validated by the function with the shared job-spec schema, which names fields and rules).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export const API_ROUTES = [
  { method: 'POST', path: '/jobs' },
  { method: 'GET', path: '/jobs' },
  { method: 'GET', path: '/jobs/{id}' },
  { method: 'GET', path: '/jobs/{id}/logs' },
  { method: 'DELETE', path: '/jobs/{id}' },
  { method: 'GET', path: '/cluster' },
  { method: 'GET', path: '/config' },
] as const;

export class TesseraApi extends Construct {
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: { handler: IFunction }) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      description: 'Tessera job API (IAM-signed requests)',
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'v1',
        loggingLevel: MethodLoggingLevel.ERROR,
        metricsEnabled: true,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
      defaultMethodOptions: { authorizationType: AuthorizationType.IAM },
    });
    const validator = this.api.addRequestValidator('Requests', {
      validateRequestParameters: true,
      // No body models: the function validates bodies with the shared job-spec schema (one source of rules).
      validateRequestBody: true,
    });
    const integration = new LambdaIntegration(props.handler, { proxy: true });
    const jobs = this.api.root.addResource('jobs');
    const job = jobs.addResource('{id}');
    const cluster = this.api.root.addResource('cluster');
    const options = { requestValidator: validator };
    jobs.addMethod('POST', integration, options);
    jobs.addMethod('GET', integration, {
      ...options,
      requestParameters: {
        'method.request.querystring.status': false,
        'method.request.querystring.limit': false,
        'method.request.querystring.nextToken': false,
      },
    });
    const idParameter = { 'method.request.path.id': true };
    job.addMethod('GET', integration, { ...options, requestParameters: idParameter });
    job.addMethod('DELETE', integration, { ...options, requestParameters: idParameter });
    job.addResource('logs').addMethod('GET', integration, {
      ...options,
      requestParameters: {
        ...idParameter,
        'method.request.querystring.rank': false,
        'method.request.querystring.cursor': false,
        'method.request.querystring.limit': false,
      },
    });
    cluster.addMethod('GET', integration, options);
    this.api.root.addResource('config').addMethod('GET', integration, options);
  }
}
