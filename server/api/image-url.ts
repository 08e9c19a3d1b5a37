import type { LanguageModelV4FilePart } from '@ai-sdk/provider';
import { fail } from './validation.ts';

const dataURL = /^data:([^;,]+)?(;base64)?,/;

const imageTypes: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  heic: 'image/heic',
  heif: 'image/heif',
};

/**
 * The media type of an image given by URL. OpenAI-compatible providers pass the
 * URL on and never look at it; Gemini fetches the URL itself but must be told a
 * full type (the AI SDK refuses `image/*`). The path's extension says it when it
 * has one; otherwise JPEG, the most common format of images on the web.
 */
function imageTypeOf(url: URL): string {
  const extension = /\.([a-z0-9]{3,4})$/i.exec(url.pathname)?.[1]?.toLowerCase();
  return (extension && imageTypes[extension]) || 'image/jpeg';
}

/**
 * An image given by URL (http(s), or a data URL with the bytes inline) -> the AI
 * SDK's file part. `field` names the URL in the request for the 400.
 */
export function imageURLToFilePart(url: string, field: string): LanguageModelV4FilePart {
  const match = dataURL.exec(url);
  if (match) {
    const mediaType = match[1] ?? 'image/png';
    const payload = url.slice(match[0].length);
    if (!match[2]) {
      let text: string;
      try {
        text = decodeURIComponent(payload);
      } catch {
        fail(field, 'is not a valid data URL');
      }
      return { type: 'file', mediaType, data: { type: 'data', data: Buffer.from(text).toString('base64') } };
    }
    return { type: 'file', mediaType, data: { type: 'data', data: payload } };
  }
  const parsed = URL.parse(url);
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    fail(field, 'must be an http(s) URL or a data URL');
  }
  return { type: 'file', mediaType: imageTypeOf(parsed), data: { type: 'url', url: parsed } };
}
