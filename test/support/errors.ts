import { expect } from 'chai';

export interface ErrorReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly message: string;
}

/**
 * Asserts the OpenAI-compatible error body: exactly message/type/code, code equal
 * to the status, no stack trace anywhere. Returns the message for further checks.
 */
export async function expectError(response: Response, status: number, type: string, message?: string): Promise<ErrorReply> {
  const text = await response.text();
  expect(response.status, text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const body = JSON.parse(text) as { error: { message: string; type: string; code: number } };
  expect(Object.keys(body)).to.deep.equal(['error']);
  expect(Object.keys(body.error).sort()).to.deep.equal(['code', 'message', 'type']);
  expect(body.error.type).to.equal(type);
  expect(body.error.code).to.equal(status);
  expect(body.error.message).to.be.a('string').and.not.equal('');
  if (message !== undefined) expect(body.error.message).to.equal(message);
  expect(text).to.not.match(/"stack"|\n\s+at |\bat .+\.(ts|js):\d+:\d+/);
  return { status: response.status, headers: response.headers, text, message: body.error.message };
}
