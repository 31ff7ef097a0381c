/// <reference types="vite/client" />

// Vite's env typing is extended by declaration merging, which only an interface allows.
interface ImportMetaEnv {
  readonly VITE_API_BASE_URL?: string;
}
