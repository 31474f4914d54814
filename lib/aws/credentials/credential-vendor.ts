/**
 * The thin STS adapter: AssumeRole on the HostDataRole with a session policy, one call per session. Sessions last
 * STS's minimum, 15 minutes: credentials of a host that was terminated or given up stop working soon after (the
 * round renews a live host's before they expire, data-scope.ts). Role chaining would cap them at an hour anyway.
 */
import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';

export const SESSION_SECONDS = 900;

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
