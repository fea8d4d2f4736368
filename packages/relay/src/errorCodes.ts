/**
 * The codes of the relay's `SdkError`s (docs/errors.md, "Relay"). The relay's own union: the SDK's
 * `SdkError<C>` carries any code set, so the SDK is not released when the relay adds one.
 */
export type RelayErrorCode =
  'relay.schema_too_new' | 'relay.store_not_writable' | 'relay.data_dir_insecure' | 'relay.no_viewer';
