import { describeSynthesizerContract } from './synthesizer.contract.js';
import { createSynthesizer } from './index.js';
import { findNativeLibraries } from './native.js';

// The engines of this package: the WebAssembly eSpeak NG always, the native one where its libraries
// are installed (under CI=true their absence fails, as in native.test.ts). The sandbox runs the same
// suite against its instant synthesizer (src/sandbox/synthesizer-contract.test.ts).
describeSynthesizerContract('eSpeak NG (WebAssembly)', () => createSynthesizer({ threads: 1, espeakBuild: 'wasm' }));
if ('espeak' in findNativeLibraries() || process.env.CI === 'true') {
  describeSynthesizerContract('eSpeak NG (native)', () => createSynthesizer({ threads: 1, espeakBuild: 'native' }));
}
