import type { ValidateFunction } from 'ajv';
import type { ChatRequest } from '../openai-types.ts';

/** The compiled validator of server/request-schema.ts (see scripts/generate-validator.ts). */
declare const validateChatRequest: ValidateFunction<ChatRequest>;
export default validateChatRequest;
