/**
 * Job-data credentials the control plane vends to one host (attribute `dataCredentials` of the host's
 * desired-state copy, next to `desired`): temporary AWS credentials whose session policy reaches only the S3
 * prefixes `jobs/<jobId>/` of the jobs listed and the working-directory objects those jobs name. A host with many
 * jobs gets several sets (a session policy has a size limit); the agent signs each job's S3 requests with the set
 * that lists the job. Times in epoch seconds.
 */
import { z } from 'zod';

export const dataCredentialSetSchema = z.object({
  jobIds: z.array(z.string().min(1)).min(1),
  /** Working-directory objects (`workdirs/…` keys) these credentials may read. */
  workdirKeys: z.array(z.string().min(1)).optional(),
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1),
  sessionToken: z.string().min(1),
  /** Epoch seconds. */
  expiresAt: z.number(),
});

export const dataCredentialsSchema = z.array(dataCredentialSetSchema);

export type DataCredentialSet = z.infer<typeof dataCredentialSetSchema>;

/** The attribute of the host's desired-state copy that holds its credentials. */
export const DATA_CREDENTIALS_ATTRIBUTE = 'dataCredentials';
