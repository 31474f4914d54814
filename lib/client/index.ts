/** The typed Tessera API client: public surface. */
export { TesseraClient, type TesseraClientOptions } from './client.ts';
export {
  API_URL_OUTPUT,
  ENDPOINT_ENV,
  type EndpointOptions,
  resolveEndpoint,
  signingRegion,
} from './endpoint.ts';
export * from './errors.ts';
export type * from './types.ts';
