/** The codes of the web viewer page's `SdkError`s (docs/errors.md, "Viewer"), the page's own union. */
export type ViewerErrorCode =
  | 'viewer.unreachable'
  | 'viewer.http_failed'
  | 'viewer.invalid_response'
  | 'viewer.bad_answer'
  | 'viewer.media_undecryptable'
  | 'viewer.link_used';
