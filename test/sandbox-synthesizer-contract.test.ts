import { describeSynthesizerContract } from '../src/server/synth/synthesizer.contract.js';
import { InstantSynthesizer } from '../src/sandbox/synthesizer.js';

// The sandbox's synthesizer owes the job runner what the server's engines do (ports/synthesis.ts).
describeSynthesizerContract('the sandbox (instant)', () => new InstantSynthesizer(10, 1));
