export declare const youngGeneration: string;
export declare const noPretenuring: string;
export declare function memoryForNode(): number;
export declare function serverNodeFlags(execArgv: readonly string[], env: NodeJS.ProcessEnv | Record<string, string | undefined>, memoryBytes?: number): string[];
