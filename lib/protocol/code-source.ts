/**
 * Where a job's code comes from (pure): a container image reference, a working directory uploaded to the
 * cluster bucket as a content-addressed archive, and setup commands run once in that directory before `command`.
 * The rules live here so the job spec (what users submit) and the desired state (what agents run) agree.
 */
import { z } from 'zod';

/** Key prefix of uploaded working directories in the cluster bucket: `workdirs/<sha256>.tar.gz`. */
export const WORKDIR_PREFIX = 'workdirs/';

/** `s3://<bucket>/workdirs/<sha256>.tar.gz`: an S3 bucket name, then the archive's digest. */
export const WORKDIR_URI_PATTERN =
  /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/workdirs\/([0-9a-f]{64})\.tar\.gz$/;

/**
 * A container image reference as `docker pull` takes it: `[registry[:port]/]path[:tag][@sha256:digest]`, the
 * path in lower case. Checked here so a typo fails at submit, not on a GPU host minutes later.
 */
export const IMAGE_REFERENCE_PATTERN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$/;

export const MAX_IMAGE_CHARS = 512;
export const MAX_SETUP_COMMANDS = 32;

export const imageSchema = z
  .string()
  .max(MAX_IMAGE_CHARS, `must be at most ${MAX_IMAGE_CHARS} characters`)
  .regex(
    IMAGE_REFERENCE_PATTERN,
    'must be a container image reference, e.g. pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime or 123456789012.dkr.ecr.eu-west-1.amazonaws.com/train@sha256:<digest>',
  );

export const workdirUriSchema = z
  .string()
  .regex(
    WORKDIR_URI_PATTERN,
    'must be s3://<bucket>/workdirs/<sha256>.tar.gz (tessera submit uploads a local directory and writes this for you)',
  );

export const setupSchema = z
  .array(z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'))
  .min(1, 'must list at least one command (omit the field for none)')
  .max(MAX_SETUP_COMMANDS, `must have at most ${MAX_SETUP_COMMANDS} commands`);

/** The bucket, key and digest of a working-directory URI, or null when it is not one. */
export const parseWorkdirUri = (uri: string): { bucket: string; key: string; sha256: string } | null => {
  const match = WORKDIR_URI_PATTERN.exec(uri);
  if (!match) return null;
  return { bucket: match[1]!, key: `${WORKDIR_PREFIX}${match[2]!}.tar.gz`, sha256: match[2]! };
};

export const workdirUri = (bucket: string, sha256: string): string =>
  `s3://${bucket}/${WORKDIR_PREFIX}${sha256}.tar.gz`;
