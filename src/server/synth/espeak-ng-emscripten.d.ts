// The package ships JavaScript only; this declares the part of its API the worker uses.
declare module '@echogarden/espeak-ng-emscripten' {
  /** An event passed to the synthesize callback beside the samples of the block it falls in. */
  export interface EspeakEvent {
    /** 'samplerate', 'sentence', 'word', 'phoneme', 'end' (of a clause, its pause included). */
    type: string;
    /** 1-based, in code points of the text given to eSpeak (an entity such as `&amp;` counts 5). */
    text_position: number;
    /** Code points of the word at `text_position`. */
    word_length: number;
    /** Milliseconds from the start of the synthesize call. */
    audio_position: number;
    id?: number;
  }
  export interface EspeakNGWorker {
    /** 0 on success; eSpeak's error code otherwise (2: no such voice), keeping the previous voice. */
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): void;
    set_pitch(pitch: number): void;
    set_range(range: number): void;
    get_samplerate(): number;
    /**
     * Synthesizes SSML-enabled text, calling back with each block of 16-bit samples and the events that
     * fall in it; return 1 to stop.
     */
    synthesize(text: string, callback: (samples: Int16Array | undefined, events: EspeakEvent[] | undefined) => number | boolean): void;
  }
  export interface EspeakModule {
    eSpeakNGWorker: new () => EspeakNGWorker;
  }
  const initialize: (moduleArg?: object) => Promise<EspeakModule>;
  export default initialize;
}
