/** Shared by the bench and its emulator thread. */
export const SIGNING_SECRET = 'bench-signing-secret';
