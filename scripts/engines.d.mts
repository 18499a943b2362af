export type EngineName = 'chromium' | 'firefox' | 'webkit';
export declare const ENGINES: readonly EngineName[];

/** An element found in a page, driven with the engine's real input (WebDriver clicks and keys). */
export interface EngineElement {
  click(): Promise<void>;
  type(text: string): Promise<void>;
  press(key: 'Enter' | 'Escape' | 'Tab' | 'ArrowDown' | 'ArrowUp' | 'Home' | 'End'): Promise<void>;
  /** Sets the files of an `<input type=file>` as the engine's file chooser would. */
  upload(...paths: string[]): Promise<void>;
}

/** One tab. `evaluate` runs `fn(arg)` in the page (it may be async) and returns its JSON value. */
export interface EnginePage {
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Back in the history, as the browser's Back button. */
  back(): Promise<void>;
  url(): Promise<string> | string;
  /** Makes the page's own area (`innerWidth` × `innerHeight`) this size, as a phone's or tablet's screen. */
  resize(width: number, height: number): Promise<void>;
  /**
   * Runs later scripts and finds later elements in the page's first iframe, until the next
   * navigation: a screen narrower than MiniBrowser's window can be (447 px) is an iframe's.
   */
  enterFrame(): Promise<void>;
  evaluate<T, A = unknown>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T>;
  /** The element that `fn(arg)` returns in the page, or null when it returns none. */
  element<A = unknown>(fn: (arg: A) => Element | null | undefined, arg?: A): Promise<EngineElement | null>;
  close(): Promise<void>;
}

/** A browser with a fresh profile of its own. */
export interface EngineProfile {
  engine: EngineName;
  version: string;
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

export interface ProfileOptions {
  /** false: a profile without service workers, as a private window is (Firefox only). */
  serviceWorkers?: boolean;
}

export interface Engine {
  name: EngineName;
  newProfile(options?: ProfileOptions): Promise<EngineProfile>;
  close(): Promise<void>;
}

export declare function engineMissing(name: EngineName): string;
export declare function launchEngine(name: EngineName): Promise<Engine>;
