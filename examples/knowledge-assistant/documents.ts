import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extractText, getDocumentProxy } from 'unpdf';

/** What a link is, as the document processor handles it. */
export type UrlType = 'pdf' | 'youtube' | 'page';

/** How documents are fetched; every field has a default (see `documentSettings`). */
export interface DocumentSettings {
  /**
   * Where YouTube transcripts come from: `GET <base>/<videoId>` answering JSON
   * `{ title?, transcript: [{ text }] }` (or `{ text }`), or plain text.
   */
  youtubeTranscriptUrl: string;
  /** The largest document read, in bytes. */
  maxBytes: number;
  /** How long one fetch may take. */
  timeoutMs: number;
  /** How much extracted text the agents work with. */
  maxTextChars: number;
  /** Whether links may lead to this machine or a private network (tests, intranets). */
  allowPrivateNetworks: boolean;
}

/** A document's text, as extracted. */
export interface ExtractedDocument {
  url_type: UrlType;
  title: string;
  text: string;
  /** Whether the text was cut at `maxTextChars`. */
  truncated: boolean;
}

/** Why a document could not be read; tools answer it as `{ error: { code, message } }`. */
export class DocumentError extends Error {
  constructor(
    readonly code:
      | 'BAD_URL'
      | 'PRIVATE_ADDRESS'
      | 'FETCH_FAILED'
      | 'TOO_LARGE'
      | 'NOT_A_PDF'
      | 'NO_TEXT',
    message: string,
  ) {
    super(message);
  }
}

/** The first http(s) link in `text`, without trailing punctuation. */
export function firstUrl(text: string): string | undefined {
  const found = /\bhttps?:\/\/[^\s<>"'`]+/i.exec(text)?.[0];
  return found?.replace(/[),.;:!?\]]+$/, '');
}

const YOUTUBE_HOSTS = /^(?:www\.|m\.)?(?:youtube\.com|youtu\.be)$/i;

/** The YouTube video id of `url`, if it is a YouTube video link. */
export function youtubeVideoId(url: string): string | undefined {
  const parsed = new URL(url);
  if (!YOUTUBE_HOSTS.test(parsed.hostname)) return undefined;
  const id = /youtu\.be$/i.test(parsed.hostname)
    ? parsed.pathname.slice(1)
    : (parsed.searchParams.get('v') ??
      /^\/(?:shorts|embed|live)\/([^/]+)/.exec(parsed.pathname)?.[1]);
  return id && /^[\w-]{6,20}$/.test(id) ? id : undefined;
}

/** What a link is by its address: a YouTube video, a `.pdf`, or an ordinary page. */
export function classifyUrl(url: string): UrlType {
  if (youtubeVideoId(url)) return 'youtube';
  return /\.pdf$/i.test(new URL(url).pathname) ? 'pdf' : 'page';
}

const MAX_REDIRECTS = 5;

/** Addresses a link may not lead to unless private networks are allowed. */
const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

/**
 * Refuses a link whose host is (or resolves to) this machine or a private network:
 * the server fetches what a chat names, so a link must not reach what only the server
 * can (metadata services, admin ports), unless `allowPrivateNetworks` says so.
 */
async function requirePublicHost(url: URL, settings: DocumentSettings): Promise<void> {
  if (settings.allowPrivateNetworks) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true }).catch(() => {
        throw new DocumentError('FETCH_FAILED', `${host} cannot be resolved.`);
      });
  for (const { address, family } of addresses) {
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is checked as IPv4.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const blocked = mapped
      ? PRIVATE_NETWORKS.check(mapped, 'ipv4')
      : PRIVATE_NETWORKS.check(address, family === 6 ? 'ipv6' : 'ipv4');
    if (blocked) {
      throw new DocumentError(
        'PRIVATE_ADDRESS',
        `${url.host} is on this machine or a private network, which links may not reach.`,
      );
    }
  }
}

function checkedUrl(url: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed;
  } catch {
    // Reported below.
  }
  throw new DocumentError('BAD_URL', `${url.slice(0, 200)} is not an http(s) link.`);
}

/** GETs `url`, reading at most `maxBytes`; the body and its content type. */
async function fetchBody(
  url: string,
  settings: DocumentSettings,
): Promise<{ body: Uint8Array; contentType: string }> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let response: Response | undefined;
  let next = checkedUrl(url);
  try {
    // Redirects are followed by hand, so every hop's host is checked like the first.
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      await requirePublicHost(next, settings);
      response = await fetch(next, { signal, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) break;
      await response.body?.cancel().catch(() => undefined);
      next = checkedUrl(new URL(location, next).href);
      response = undefined;
    }
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    throw new DocumentError('FETCH_FAILED', `Could not fetch ${url}: ${(error as Error).message}`);
  }
  if (!response) throw new DocumentError('FETCH_FAILED', `${url} redirects too many times.`);
  if (!response.ok || !response.body) {
    throw new DocumentError('FETCH_FAILED', `${url} answered ${response.status}.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > settings.maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new DocumentError('TOO_LARGE', `${url} is larger than ${settings.maxBytes} bytes.`);
    }
    chunks.push(chunk);
  }
  return {
    // pdf.js takes a plain Uint8Array, not a Buffer.
    body: new Uint8Array(Buffer.concat(chunks)),
    contentType: response.headers.get('content-type') ?? '',
  };
}

function finish(url_type: UrlType, title: string, raw: string, settings: DocumentSettings) {
  const text = raw
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
  if (!text) throw new DocumentError('NO_TEXT', 'The document has no text to read.');
  return {
    url_type,
    title: title.trim().slice(0, 200),
    text: text.slice(0, settings.maxTextChars),
    truncated: text.length > settings.maxTextChars,
  } satisfies ExtractedDocument;
}

/** The text of the PDF at `url`, with a real PDF parser (pdf.js through unpdf). */
export async function readPdf(url: string, settings: DocumentSettings): Promise<ExtractedDocument> {
  const { body } = await fetchBody(url, settings);
  let text: string;
  let title = '';
  try {
    const pdf = await getDocumentProxy(body);
    const meta = (await pdf.getMetadata().catch(() => undefined)) as
      | { info?: { Title?: unknown } }
      | undefined;
    title = typeof meta?.info?.Title === 'string' ? meta.info.Title : '';
    text = (await extractText(pdf, { mergePages: true })).text;
  } catch (error) {
    throw new DocumentError(
      'NOT_A_PDF',
      `${url} is not a readable PDF: ${(error as Error).message}`,
    );
  }
  return finish('pdf', title || new URL(url).pathname.split('/').at(-1) || url, text, settings);
}

const BLOCK_END = /<\/(?:p|div|h[1-6]|li|section|article|blockquote|pre|tr)>|<br\s*\/?>/gi;

/** The article text of the HTML page at `url` (Mozilla Readability on linkedom). */
export async function readPage(
  url: string,
  settings: DocumentSettings,
): Promise<ExtractedDocument> {
  const { body } = await fetchBody(url, settings);
  const html = new TextDecoder().decode(body);
  const { document } = parseHTML(html);
  const article = new Readability(document as unknown as Document).parse();
  const content = article?.content ?? document.body?.innerHTML ?? '';
  // Readability's textContent runs paragraphs together; end each block with a line.
  const blocks = content.replace(BLOCK_END, (tag) => `${tag}\n`);
  const text = parseHTML(`<!doctype html><html><body>${blocks}</body></html>`).document.body
    .textContent;
  return finish('page', article?.title || document.title || url, text ?? '', settings);
}

/** The transcript of the YouTube video at `url`, from the configured transcript service. */
export async function readYoutube(
  url: string,
  settings: DocumentSettings,
): Promise<ExtractedDocument> {
  const videoId = youtubeVideoId(url);
  if (!videoId) throw new DocumentError('BAD_URL', `${url} is not a YouTube video link.`);
  const base = settings.youtubeTranscriptUrl.replace(/\/+$/, '');
  const { body, contentType } = await fetchBody(`${base}/${encodeURIComponent(videoId)}`, settings);
  const raw = new TextDecoder().decode(body);
  if (!/json/i.test(contentType)) return finish('youtube', `YouTube ${videoId}`, raw, settings);
  let parsed: { title?: unknown; text?: unknown; transcript?: unknown };
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new DocumentError('FETCH_FAILED', 'The transcript service answered invalid JSON.');
  }
  const lines = Array.isArray(parsed.transcript)
    ? parsed.transcript.map((s) => String((s as { text?: unknown })?.text ?? ''))
    : [String(parsed.text ?? '')];
  const title = typeof parsed.title === 'string' ? parsed.title : `YouTube ${videoId}`;
  return finish('youtube', title, lines.join('\n'), settings);
}

/** Reads `url` as what it is. */
export function readDocument(url: string, type: UrlType, settings: DocumentSettings) {
  if (type === 'pdf') return readPdf(url, settings);
  if (type === 'youtube') return readYoutube(url, settings);
  return readPage(url, settings);
}
