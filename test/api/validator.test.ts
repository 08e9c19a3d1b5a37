import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { validatorPath, validatorSource } from '../../scripts/generate-validator.ts';

describe('generated request validator', () => {
  it('is up to date with server/api/chat/schema.ts (run `npm run generate` after changing the schema)', () => {
    expect(readFileSync(validatorPath, 'utf8')).to.equal(validatorSource());
  });
});
