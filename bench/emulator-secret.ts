/** Shared by the bench and its emulator process. */
export const SIGNING_SECRET = 'bench-signing-secret';
