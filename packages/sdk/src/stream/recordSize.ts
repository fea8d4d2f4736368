import { SdkError } from '../errors.js';
import { sealedLength } from '../crypto/records.js';
import type { EncryptionVariant } from '../crypto/records.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';

/**
 * The largest record the SDK writes and the least its readers accept: 1 MiB of ciphertext
 * (docs/transport.md, "Size limit"). The writer refuses a message whose record would be larger
 * (`stream.too_large`); `SessionReader` reads every record up to this size by default.
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** Bytes of ciphertext a record's standard base64 `content` holds (padding excluded). */
export function storedRecordBytes(content: string): number {
  const padding = content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
  return Math.floor((content.length * 3) / 4) - padding;
}

/**
 * Refuses a record of `plainBytes` of plaintext that would seal to more than
 * {@link MAX_RECORD_BYTES}: `stream.too_large` with the size and the limit.
 */
export function assertRecordFits(
  plainBytes: number,
  variant: EncryptionVariant,
  message: SessionMessage,
): void {
  const size = sealedLength(plainBytes, variant);
  if (size <= MAX_RECORD_BYTES) return;
  throw new SdkError(
    'stream.too_large',
    `Message ${message.id} (${message.type}) would be a record of ${size} bytes; the limit is ${MAX_RECORD_BYTES}.`,
    {
      hint: 'nothing was appended; split long text with splitText() and append the parts (docs/transport.md, "Size limit")',
      details: { size, limit: MAX_RECORD_BYTES, messageId: message.id, type: message.type },
    },
  );
}
