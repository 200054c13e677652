// Loaded with --import before every test file.
import { installNetGuard } from './net-guard.ts';

process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';
installNetGuard();
