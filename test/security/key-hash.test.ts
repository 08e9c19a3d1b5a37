import { createHmac, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createKeyHasher, createTextHasher, hmacSha256 } from '../../server/state/key-hash.ts';

/** What node:crypto says HMAC-SHA256 is: the reference every identity Freeway keeps must equal. */
const reference = (secret: string, text: string): string => createHmac('sha256', secret).update(text).digest('base64url');

describe('key identities are HMAC-SHA256 under KEY_HASH_SECRET', () => {
  const secrets: Array<[string, string]> = [
    ['the generated kind (64 hex digits)', randomBytes(32).toString('hex')],
    ['a short ASCII secret', 'sixteen-chars-ok'],
    ['exactly one block (64 bytes)', 'k'.repeat(64)],
    ['longer than a block (hashed first)', 's'.repeat(65)],
    ['non-ASCII (UTF-8 bytes past 0x7f)', 'clé-secrète-für-Schlüssel'],
    ['with control characters', 'tab\there\nnewline\u0001'],
  ];
  const texts = ['gsk_0123456789abcdefghijklmnopqrstuv', '', 'ünïcödé 日本語 🙂', 'x'.repeat(100_000), '\u0000\u007f\u0080\u00ff', 'lone \ud800 surrogate'];

  for (const [name, secret] of secrets) {
    it(`equal node:crypto's createHmac for ${name}`, () => {
      const mac = hmacSha256(secret);
      for (const text of texts) expect(mac(text), `text of ${text.length} characters`).to.equal(reference(secret, text));
      // The same function called again gives the same answer: nothing of one call leaks into the next.
      expect(mac(texts[0] as string)).to.equal(reference(secret, texts[0] as string));
    });
  }

  it('a key id is provider:HMAC of the key, and the anonymous marker is not hashed', () => {
    const secret = randomBytes(32).toString('hex');
    const hashKey = createKeyHasher(secret);
    expect(hashKey('groq', 'gsk_abc')).to.equal(`groq:${reference(secret, 'gsk_abc')}`);
    expect(hashKey('kilo', 'anonymous')).to.equal('kilo:anonymous');
    expect(createKeyHasher('another-secret-0123')('groq', 'gsk_abc')).to.not.equal(hashKey('groq', 'gsk_abc'));
  });

  it('a text id is namespace:HMAC of the pieces, each with its length before it', () => {
    const secret = randomBytes(32).toString('hex');
    const hashText = createTextHasher(secret);
    expect(hashText('conversation', ['free:auto', 'hello'])).to.equal(`conversation:${reference(secret, '9:free:auto5:hello')}`);
    // Pieces that read alike run together are still different lists.
    expect(hashText('conversation', ['ab', 'c'])).to.not.equal(hashText('conversation', ['a', 'bc']));
  });
});
