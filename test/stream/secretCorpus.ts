import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const URLSAFE = ALNUM + '_-';

/** `length` random characters of `alphabet`. */
function random(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * One freshly generated secret of each format the default detectors know, by the kind the marker
 * names. Several kinds have more than one shape (GitHub's classic and fine-grained tokens, say).
 */
export function generateSecrets(): Array<{ kind: string; secret: string }> {
  const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  const openssh = [
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    ...Array.from({ length: 5 }, () => randomBytes(52).toString('base64').slice(0, 70)),
    '-----END OPENSSH PRIVATE KEY-----',
  ].join('\n');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'sec1',
    format: 'pem',
  }) as string;
  return [
    { kind: 'private-key', secret: pem.trim() },
    { kind: 'private-key', secret: ec.trim() },
    { kind: 'private-key', secret: openssh },
    { kind: 'aws-access-key-id', secret: `AKIA${random(UPPER + DIGITS, 16)}` },
    { kind: 'aws-access-key-id', secret: `ASIA${random(UPPER + DIGITS, 16)}` },
    { kind: 'google-api-key', secret: `AIza${random(URLSAFE, 35)}` },
    { kind: 'google-oauth-secret', secret: `GOCSPX-${random(URLSAFE, 28)}` },
    {
      kind: 'azure-client-secret',
      secret: `${random(ALNUM, 3)}${randomInt(10)}Q~${random(ALNUM + '_~.-', 34)}`,
    },
    { kind: 'digitalocean-token', secret: `dop_v1_${randomBytes(32).toString('hex')}` },
    { kind: 'github-token', secret: `ghp_${random(ALNUM, 36)}` },
    { kind: 'github-token', secret: `gho_${random(ALNUM, 36)}` },
    { kind: 'github-token', secret: `ghs_${random(ALNUM, 36)}` },
    { kind: 'github-token', secret: `github_pat_${random(ALNUM, 22)}_${random(ALNUM, 59)}` },
    { kind: 'gitlab-token', secret: `glpat-${random(URLSAFE, 20)}` },
    { kind: 'gitlab-token', secret: `glrt-${random(URLSAFE, 26)}` },
    { kind: 'slack-token', secret: `xoxb-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${random(ALNUM, 24)}` },
    {
      kind: 'slack-token',
      secret: `xoxp-${random(DIGITS, 12)}-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${random(LOWER + DIGITS, 32)}`,
    },
    {
      kind: 'slack-token',
      secret: `xapp-1-A${random(UPPER + DIGITS, 10)}-${random(DIGITS, 13)}-${random(LOWER + DIGITS, 64)}`,
    },
    {
      kind: 'slack-webhook',
      secret: `https://hooks.slack.com/services/T${random(UPPER + DIGITS, 8)}/B${random(UPPER + DIGITS, 10)}/${random(ALNUM, 24)}`,
    },
    { kind: 'npm-token', secret: `npm_${random(ALNUM, 36)}` },
    { kind: 'openai-key', secret: `sk-proj-${random(URLSAFE, 120)}` },
    { kind: 'openai-key', secret: `sk-svcacct-${random(URLSAFE, 80)}` },
    { kind: 'openai-key', secret: `sk-${random(ALNUM, 20)}T3BlbkFJ${random(ALNUM, 20)}` },
    { kind: 'anthropic-key', secret: `sk-ant-api03-${random(URLSAFE, 93)}AA` },
    { kind: 'anthropic-key', secret: `sk-ant-admin01-${random(URLSAFE, 93)}AA` },
    {
      kind: 'jwt',
      secret: `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: random(DIGITS, 10), name: 'Ada', iat: 1516239022 })}.${randomBytes(32).toString('base64url')}`,
    },
  ];
}

/**
 * Secrets that sit inside a larger string, where only a part is the secret: the password of a
 * connection string, the secret after `aws_secret_access_key =`, an `.npmrc` auth token. `text`
 * holds it; `secret` is the part that must disappear; `kept` must stay readable.
 */
export function generateEmbeddedSecrets(): Array<{
  kind: string;
  text: string;
  secret: string;
  kept: string;
}> {
  const password = random(ALNUM + '!%^*', 18);
  const mongo = random(ALNUM, 16);
  const ado = random(ALNUM, 14);
  const accountKey = `${randomBytes(64).toString('base64')}`;
  const awsSecret = random(ALNUM + '/+', 40);
  const npmrc = random(ALNUM + '-', 36);
  return [
    {
      kind: 'connection-string-password',
      text: `postgres://deploy:${password}@db.internal:5432/app`,
      secret: password,
      kept: '@db.internal:5432/app',
    },
    {
      kind: 'connection-string-password',
      text: `MONGO_URL=mongodb+srv://svc:${mongo}@cluster0.example.net/prod?retryWrites=true`,
      secret: mongo,
      kept: 'cluster0.example.net/prod',
    },
    {
      kind: 'connection-string-password',
      text: `Server=tcp:sql.example.net,1433;Database=app;User ID=svc;Password=${ado};Encrypt=true;`,
      secret: ado,
      kept: 'Server=tcp:sql.example.net,1433;Database=app',
    },
    {
      kind: 'connection-string-password',
      text: `DefaultEndpointsProtocol=https;AccountName=store1;AccountKey=${accountKey};EndpointSuffix=core.windows.net`,
      secret: accountKey,
      kept: 'AccountName=store1',
    },
    {
      kind: 'aws-secret-access-key',
      text: `aws_secret_access_key = ${awsSecret}`,
      secret: awsSecret,
      kept: 'aws_secret_access_key = ',
    },
    {
      kind: 'npm-token',
      text: `//npm.example.internal/:_authToken=${npmrc}`,
      secret: npmrc,
      kept: '/:_authToken=',
    },
  ];
}
