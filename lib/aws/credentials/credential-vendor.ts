/**
 * The thin STS adapter: AssumeRole on the HostDataRole with a session policy, one call per session. The round
 * Lambda's own credentials are role credentials, so this is role chaining: AWS caps the session at one hour.
 */
import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';

export const SESSION_SECONDS = 3600;

export interface VendedCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface CredentialVendor {
  /** Credentials of a session named `sessionName` limited by `policy`. */
  vend(sessionName: string, policy: string): Promise<VendedCredentials>;
}

export class StsCredentialVendor implements CredentialVendor {
  constructor(
    private readonly sts: Pick<STSClient, 'send'>,
    private readonly roleArn: string,
  ) {}

  async vend(sessionName: string, policy: string): Promise<VendedCredentials> {
    const output = await this.sts.send(
      new AssumeRoleCommand({
        RoleArn: this.roleArn,
        RoleSessionName: sessionName,
        Policy: policy,
        DurationSeconds: SESSION_SECONDS,
      }),
    );
    const c = output.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration)
      throw new Error(`AssumeRole ${this.roleArn} returned no credentials`);
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiresAt: Math.floor(c.Expiration.getTime() / 1000),
    };
  }
}
