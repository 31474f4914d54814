/** `s3://bucket/key/prefix` split into bucket and key prefix (no leading or trailing slash). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

export function isS3Uri(uri: string): boolean {
  return uri.startsWith('s3://');
}

export function parseS3Uri(uri: string): S3Location {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (!match) throw new Error(`not an s3:// URI: ${uri}`);
  return { bucket: match[1]!, prefix: match[2]!.replace(/\/+$/, '') };
}

export function formatS3Uri(location: S3Location): string {
  return location.prefix === '' ? `s3://${location.bucket}` : `s3://${location.bucket}/${location.prefix}`;
}

/** The key prefix under which objects of `location` live (`prefix/`, or '' for a whole bucket). */
export function keyPrefix(location: S3Location): string {
  return location.prefix === '' ? '' : `${location.prefix}/`;
}
