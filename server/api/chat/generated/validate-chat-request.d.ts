import type { ValidateFunction } from 'ajv';
import type { ChatRequest } from '../types.ts';

/** The compiled validator of server/api/chat/schema.ts (see scripts/generate-validator.ts). */
declare const validateChatRequest: ValidateFunction<ChatRequest>;
export default validateChatRequest;
