import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A real S3 peer (s3rver) on loopback with one bucket; stopped after the test. */
export async function startS3(t: TestContext, bucket = 'linkvault-test') {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-s3-'));
  let server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  t.after(async () => {
    client.destroy();
    await server.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return {
    /** The environment that points linkvault at this bucket. */
    env: {
      STORAGE_URL: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true`,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    /** Stops the server: the bucket cannot be reached until `start`. */
    stop: () => server.close(),
    /** Starts it again on the same port over the same objects. */
    async start(): Promise<void> {
      server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: dir });
      await server.run();
    },
    async keys(): Promise<string[]> {
      const listing = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listing.Contents ?? []).map((object) => object.Key!);
    },
  };
}
