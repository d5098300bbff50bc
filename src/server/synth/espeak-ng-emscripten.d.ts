// The package ships JavaScript only; this declares the part of its API the worker uses.
declare module '@echogarden/espeak-ng-emscripten' {
  export interface EspeakNGWorker {
    /** 0 on success; eSpeak's error code otherwise (2: no such voice), keeping the previous voice. */
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): void;
    set_pitch(pitch: number): void;
    set_range(range: number): void;
    get_samplerate(): number;
    /** Synthesizes SSML-enabled text, calling back with each block of 16-bit samples; return 1 to stop. */
    synthesize(text: string, callback: (samples: Int16Array | undefined, events: unknown[]) => number | boolean): void;
  }
  export interface EspeakModule {
    eSpeakNGWorker: new () => EspeakNGWorker;
  }
  const initialize: (moduleArg?: object) => Promise<EspeakModule>;
  export default initialize;
}
