import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Bucket } from './bucket.js';

/** A running upload's marker: `<prefix>/.uploads/<job>/<writer>.<ms>`, its name saying when it was last touched. */
export interface Marker {
  key: string;
  jobId: string;
  writerId: string;
  touchedAt: number;
}

/**
 * The markers of running uploads, one per writer: put when a writer starts, put again under a new time
 * while it writes, deleted on commit or abort; a marker left behind is a run that died.
 */
export class UploadMarkers {
  constructor(private readonly bucket: S3Bucket) {}

  private root(): string {
    return `${this.bucket.prefix}.uploads/`;
  }

  /** The key of a writer's marker touched at `at`. */
  keyOf(jobId: string, writerId: string, at: number): string {
    return `${this.root()}${jobId}/${writerId}.${at}`;
  }

  /** Markers under the root, or of one job (or one writer of it). */
  async list(jobId?: string, writerId?: string): Promise<Marker[]> {
    const root = this.root();
    const prefix = `${root}${jobId ? `${jobId}/${writerId ? `${writerId}.` : ''}` : ''}`;
    const markers: Marker[] = [];
    let token: string | undefined;
    do {
      const page = await this.bucket.send('listing uploads', (abortSignal) =>
        this.bucket.client.send(new ListObjectsV2Command({ Bucket: this.bucket.name, Prefix: prefix, ContinuationToken: token }), { abortSignal }),
      );
      for (const o of page.Contents ?? []) {
        const m = /^([^/]+)\/([^/.]+)\.(\d+)$/.exec((o.Key ?? '').slice(root.length));
        if (m) markers.push({ key: o.Key!, jobId: m[1]!, writerId: m[2]!, touchedAt: Number(m[3]) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return markers;
  }

  /** Puts an (empty) marker object. */
  async put(key: string): Promise<void> {
    await this.bucket.send('recording an upload', (abortSignal) =>
      this.bucket.client.send(new PutObjectCommand({ Bucket: this.bucket.name, Key: key, Body: new Uint8Array(0) }), { abortSignal }),
    );
  }

  /** Re-stamps a job's markers as touched at `at` (tests age them with it). */
  async restamp(jobId: string, at: (m: Marker) => number): Promise<void> {
    for (const m of await this.list(jobId)) {
      await this.put(this.keyOf(jobId, m.writerId, at(m)));
      await this.bucket.deleteKey(m.key);
    }
  }
}
