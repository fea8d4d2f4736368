import * as z from '../zod.js';

/** The Happy server's largest attachment: 10 MB of ciphertext (docs/wire.md §8.1). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** `POST /v1/sessions/:id/attachments/request-upload` body (docs/wire.md §8.1). */
export const UploadRequestBodySchema = z.object({
  filename: z.string(),
  size: z.number().check(z.maximum(MAX_ATTACHMENT_BYTES)),
});

/** Its answer: where to send the blob, and the `ref` it will be found under (docs/wire.md §8.1). */
export const UploadTicketSchema = z.object({
  ref: z.string().check(z.minLength(1)),
  uploadUrl: z.url(),
  // Servers from before presigned POST answer without a method: they take a PUT.
  method: z._default(z.enum(['PUT', 'POST']), 'PUT'),
  formFields: z.optional(z.record(z.string(), z.string())),
});
/** An upload ticket. */
export type UploadTicket = z.output<typeof UploadTicketSchema>;

/** `POST /v1/sessions/:id/attachments/request-download` body (docs/wire.md §8.2). */
export const DownloadRequestBodySchema = z.object({ ref: z.string() });

/** Its answer (docs/wire.md §8.2). */
export const DownloadTicketSchema = z.object({ downloadUrl: z.url() });
