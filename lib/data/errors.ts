/** A data file that is missing or does not hold what its reader expects; the message names the file (and line). */
export class DataFileError extends Error {
  override readonly name = 'DataFileError';

  constructor(
    readonly file: string,
    detail: string,
    readonly line?: number,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${detail}`);
  }
}
