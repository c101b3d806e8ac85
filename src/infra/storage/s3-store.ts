import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  BlobNotFoundError,
  abortError,
  assertValidBlobKey,
  assertValidBlobPrefix,
  assertValidByteRange,
  trackedPuts,
  type BlobEntry,
  StorageUnavailableError,
  type BlobStore,
  type ByteRange,
} from './blob-store.js';

const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;
/** DeleteObjects takes at most 1000 keys per request. */
const DELETE_BATCH_SIZE = 1000;

export interface S3BlobStoreConfig {
  bucket: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
}

/** Maps the SDK's "no such object" answers to BlobNotFoundError and an unsatisfiable range to RangeError. */
function translateS3Error(error: unknown, key: string): unknown {
  if (!(error instanceof S3ServiceException)) return error;
  // HEAD answers carry no body, so a missing key on HeadObject only shows as a bare 404 "NotFound".
  if (error.name === 'NoSuchKey' || error.name === 'NotFound') return new BlobNotFoundError(key);
  if (error.name === 'InvalidRange') return new RangeError(`Range not satisfiable for blob ${key}`, { cause: error });
  return error;
}

/**
 * An S3 call that got no answer (refused, reset, timed out, name not found) or S3's own 5xx,
 * once the SDK's retries are spent: the service is away, not the request wrong.
 */
function unavailability(error: unknown): StorageUnavailableError | undefined {
  const failure = error as { $metadata?: { httpStatusCode?: number }; $fault?: string; name?: string };
  if (error instanceof S3ServiceException && failure.$fault !== 'server') return undefined;
  if (!(error instanceof S3ServiceException) && failure.$metadata?.httpStatusCode !== undefined) return undefined;
  if (failure.name === 'AbortError') return undefined;
  return new StorageUnavailableError(`S3 cannot be reached: ${(error as Error).message}`, { cause: error });
}

/**
 * Blobs as objects of one bucket, keyed exactly as the interface's keys. Credentials come from
 * the SDK's default provider chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, roles).
 */
export function createS3BlobStore(config: S3BlobStoreConfig, options: { timeoutMs?: number } = {}): BlobStore {
  const { bucket } = config;
  const { timeoutMs } = options;
  const client = new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    // Bounded, one try each: a caller that must answer in time (the doctor) would rather report a silent peer than retry it.
    ...(timeoutMs !== undefined
      ? { maxAttempts: 1, requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true } }
      : {}),
  });
  // Around every command and its retries, multipart uploads included.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw unavailability(error) ?? error;
      }
    },
    { step: 'initialize', name: 'storageUnavailable' },
  );

  async function deleteObject(key: string): Promise<void> {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  }

  async function put(key: string, body: Readable, options: { signal?: AbortSignal } = {}): Promise<{ size: number }> {
    const { signal } = options;
    try {
      assertValidBlobKey(key);
      if (signal?.aborted) throw abortError(signal);
    } catch (error) {
      body.destroy();
      throw error;
    }
    let size = 0;
    let bodyError: unknown;
    body.once('error', (error) => (bodyError ??= error));
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    // The signal destroys the body instead of calling upload.abort(): abort() makes done() reject
    // at once while parts are still in flight and AbortMultipartUpload is not yet sent, whereas a
    // failing body makes done() wait for both, so put settles only once nothing is left behind.
    const piping = pipeline(body, counter, { signal }).catch(() => undefined); // surfaces through done()
    const upload = new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: counter },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      body.destroy();
      counter.destroy();
      await piping;
      if (signal?.aborted) throw abortError(signal);
      // When AbortMultipartUpload itself fails, done() rejects with that; the body's error says more.
      throw bodyError ?? error;
    }
    await piping;
    // Aborted while the last request was in flight: the object landed, but the caller gave up on it.
    if (signal?.aborted) {
      await deleteObject(key);
      throw abortError(signal);
    }
    return { size };
  }

  const puts = trackedPuts();

  return {
    put: (key: string, body: Readable, options?: { signal?: AbortSignal }) => puts.track(put(key, body, options)),

    async get(key: string, range?: ByteRange): Promise<Readable> {
      assertValidBlobKey(key);
      if (range) assertValidByteRange(range);
      try {
        const object = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            Range: range ? `bytes=${range.start}-${range.endInclusive}` : undefined,
          }),
        );
        if (!(object.Body instanceof Readable)) throw new Error(`S3 returned no Node stream for blob ${key}`);
        return object.Body;
      } catch (error) {
        throw translateS3Error(error, key);
      }
    },

    async size(key: string): Promise<number> {
      assertValidBlobKey(key);
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        if (head.ContentLength === undefined) throw new Error(`S3 returned no length for blob ${key}`);
        return head.ContentLength;
      } catch (error) {
        throw translateS3Error(error, key);
      }
    },

    async delete(key: string): Promise<void> {
      assertValidBlobKey(key);
      await deleteObject(key);
    },

    async deletePrefix(prefix: string): Promise<void> {
      assertValidBlobPrefix(prefix);
      // Listing resumes after the last key it returned, so deleting page by page skips nothing.
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
        const keys = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
        for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
          const batch = keys.slice(start, start + DELETE_BATCH_SIZE);
          const result = await client.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          );
          const failed = result.Errors ?? [];
          if (failed.length > 0) {
            const first = failed[0];
            throw new Error(`Could not delete ${failed.length} blob(s) under ${prefix}, first ${first?.Key}: ${first?.Code} ${first?.Message}`);
          }
        }
      }
    },

    async *keys(): AsyncIterable<string> {
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket })) {
        for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
      }
    },

    async *entries(prefix: string): AsyncIterable<BlobEntry> {
      assertValidBlobPrefix(prefix);
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined) yield { key: object.Key, modifiedAt: object.LastModified?.getTime() ?? 0 };
        }
      }
    },

    async close(): Promise<void> {
      await puts.settled();
      client.destroy();
    },
  };
}
