/** The response envelope of both HTTP surfaces (the gateway snake_cases the keys). */
export type Success<T> = { success: true; data: T };
export type Failure = { success: false; error: { code: string; message: string } };
export type Envelope<T> = Success<T> | Failure;

export const ok = <T>(data: T): Success<T> => ({ success: true, data });
export const fail = (code: string, message: string): Failure => ({ success: false, error: { code, message } });
