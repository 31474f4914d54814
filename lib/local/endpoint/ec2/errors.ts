/** An EC2 API error; `code` is what the SDK turns into the exception name (e.g. `InvalidInstanceID.NotFound`). */
export class Ec2Error extends Error {
  override readonly name = 'Ec2Error';
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }
}
