// Loaded with --import before every test file.
import { installNetGuard } from './net-guard.ts';

installNetGuard();
