/**
 * The codes of the command's `SdkError`s and `--json` failures (docs/errors.md, "CLI"). The
 * command's own union: the SDK's `SdkError<C>` carries any code set, so the SDK is not released
 * when the command adds one.
 */
export type CliErrorCode =
  | 'cli.already_logged_in'
  | 'cli.login_timeout'
  | 'cli.login_wrong_answer'
  | 'cli.no_terminal'
  | 'cli.port_in_use'
  | 'cli.key_exists'
  | 'cli.agent_unreachable'
  | 'cli.no_master_secret'
  | 'cli.bad_choice'
  | 'cli.usage'
  | 'cli.unexpected';
