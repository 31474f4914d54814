/** A working directory that cannot be brought to the cluster: missing, too large, no bucket, upload refused. */
import { TesseraClientError } from '../../client/errors.ts';

export class WorkdirError extends TesseraClientError {
  override readonly name = 'WorkdirError';
}
