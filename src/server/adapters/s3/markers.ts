import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Bucket } from './bucket.js';

/** A running upload's marker: `<prefix>/.uploads/<key>/<writer>.<ms>`, its name saying when it was last touched. */
export interface Marker {
  /** The marker's own object key. */
  objectKey: string;
  /** The storage key being written. */
  key: string;
  writerId: string;
  touchedAt: number;
}

/**
 * The markers of running uploads, one per writer: put when a writer starts, put again under a new time
 * while it writes, deleted on commit or abort; a marker left behind is a writer that died.
 */
export class UploadMarkers {
  constructor(private readonly bucket: S3Bucket) {}

  private root(): string {
    return `${this.bucket.prefix}.uploads/`;
  }

  /** The object key of a writer's marker touched at `at`. */
  keyOf(key: string, writerId: string, at: number): string {
    return `${this.root()}${key}/${writerId}.${at}`;
  }

  /** Markers of the keys that begin with `keyPrefix` (all when empty), or of one writer of the key `keyPrefix`. */
  async list(keyPrefix = '', writerId?: string): Promise<Marker[]> {
    const root = this.root();
    const prefix = `${root}${keyPrefix}${writerId ? `/${writerId}.` : ''}`;
    const markers: Marker[] = [];
    let token: string | undefined;
    do {
      const page = await this.bucket.send('listing uploads', (abortSignal) =>
        this.bucket.client.send(new ListObjectsV2Command({ Bucket: this.bucket.name, Prefix: prefix, ContinuationToken: token }), { abortSignal }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key === undefined) continue;
        const [, key, writerId, touched] = /^(.+)\/([^/.]+)\.(\d+)$/.exec(o.Key.slice(root.length)) ?? [];
        if (key && writerId && touched) markers.push({ objectKey: o.Key, key, writerId, touchedAt: Number(touched) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return markers;
  }

  /** Puts an (empty) marker object. */
  async put(objectKey: string): Promise<void> {
    await this.bucket.send('recording an upload', (abortSignal) =>
      this.bucket.client.send(new PutObjectCommand({ Bucket: this.bucket.name, Key: objectKey, Body: new Uint8Array(0) }), { abortSignal }),
    );
  }

  /** Re-stamps the markers of the keys that begin with `keyPrefix` as touched at `at` (tests age them with it). */
  async restamp(keyPrefix: string, at: (m: Marker) => number): Promise<void> {
    for (const m of await this.list(keyPrefix)) {
      await this.put(this.keyOf(m.key, m.writerId, at(m)));
      await this.bucket.deleteKey(m.objectKey);
    }
  }
}
