/**
 * STS on the local endpoint: AssumeRole issues real temporary credentials (an `ASIA…` access key, a secret and a
 * session token) and remembers each session with its session policy, so the endpoint can verify requests signed
 * with them and hold them to that policy (see s3-authorization.ts). Hosts cannot assume roles: a request signed
 * with a local host credential (`LOCALHOST…`) or with vended credentials is refused, as only the round's role may
 * assume the HostDataRole on AWS. The role's own policy is not evaluated locally (the CDK tests assert it).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { escapeXml } from './xml.ts';

export interface StsSession {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  /** Epoch milliseconds. */
  readonly expiresAtMs: number;
  readonly roleArn: string;
  readonly sessionName: string;
  /** The session policy as given (JSON text), if any. */
  readonly policy?: string;
}

export interface StsReply {
  readonly status: number;
  readonly body: string;
}

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const MAX_POLICY_CHARS = 2048;
const HOST_KEY_PREFIX = 'LOCALHOST';

const token = (bytes: number) => randomBytes(bytes).toString('base64url');
const accessKey = () =>
  `ASIA${[...randomBytes(16)].map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32]).join('')}`;

const error = (status: number, code: string, message: string): StsReply => ({
  status,
  body:
    `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code>` +
    `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
});

export class LocalSts {
  private readonly sessions = new Map<string, StsSession>();

  constructor(
    private readonly accountId: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The session of a vended access key (expired ones too: the caller decides what expiry means). */
  session(accessKeyId: string): StsSession | undefined {
    return this.sessions.get(accessKeyId);
  }

  now(): number {
    return this.clock();
  }

  /** Answers one Query-protocol STS request (form body) from the caller with `callerAccessKeyId`. */
  handle(form: string, callerAccessKeyId: string | undefined): StsReply {
    const params = new URLSearchParams(form);
    const action = params.get('Action');
    if (action !== 'AssumeRole')
      return error(400, 'InvalidAction', `The local endpoint's STS serves AssumeRole, not ${action}`);
    if (!callerAccessKeyId) return error(403, 'MissingAuthenticationToken', 'Request is not signed');
    if (callerAccessKeyId.startsWith(HOST_KEY_PREFIX) || this.sessions.has(callerAccessKeyId))
      return error(403, 'AccessDenied', `${callerAccessKeyId} is not authorized to perform: sts:AssumeRole`);
    const roleArn = params.get('RoleArn') ?? '';
    const sessionName = params.get('RoleSessionName') ?? '';
    const policy = params.get('Policy') ?? undefined;
    const duration = Number(params.get('DurationSeconds') ?? 3600);
    if (!roleArn.startsWith('arn:')) return error(400, 'ValidationError', 'RoleArn must be an ARN');
    if (!SESSION_NAME.test(sessionName))
      return error(400, 'ValidationError', `RoleSessionName "${sessionName}" must be 2-64 of [\\w+=,.@-]`);
    if (!Number.isInteger(duration) || duration < 900 || duration > 43_200)
      return error(400, 'ValidationError', 'DurationSeconds must be 900-43200');
    if (policy !== undefined) {
      if (policy.length > MAX_POLICY_CHARS)
        return error(400, 'ValidationError', `Policy: length ${policy.length} exceeds ${MAX_POLICY_CHARS}`);
      try {
        JSON.parse(policy);
      } catch {
        return error(400, 'MalformedPolicyDocument', 'Policy is not valid JSON');
      }
    }
    const session: StsSession = {
      accessKeyId: accessKey(),
      secretAccessKey: token(30),
      sessionToken: token(48),
      expiresAtMs: this.clock() + duration * 1000,
      roleArn,
      sessionName,
      ...(policy !== undefined ? { policy } : {}),
    };
    this.sessions.set(session.accessKeyId, session);
    const roleName = roleArn.split(/[:/]/).pop();
    return {
      status: 200,
      body:
        `<AssumeRoleResponse xmlns="${NS}"><AssumeRoleResult><Credentials>` +
        `<AccessKeyId>${session.accessKeyId}</AccessKeyId><SecretAccessKey>${session.secretAccessKey}</SecretAccessKey>` +
        `<SessionToken>${session.sessionToken}</SessionToken>` +
        `<Expiration>${new Date(session.expiresAtMs).toISOString()}</Expiration></Credentials>` +
        `<AssumedRoleUser><AssumedRoleId>AROALOCAL:${escapeXml(sessionName)}</AssumedRoleId>` +
        `<Arn>arn:aws:sts::${this.accountId}:assumed-role/${escapeXml(roleName ?? '')}/${escapeXml(sessionName)}</Arn>` +
        `</AssumedRoleUser>${policy !== undefined ? `<PackedPolicySize>${Math.ceil((policy.length * 100) / MAX_POLICY_CHARS)}</PackedPolicySize>` : ''}` +
        `</AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    };
  }
}
