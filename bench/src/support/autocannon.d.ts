/** The part of autocannon 9's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  type RawRequest = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
  type Options = {
    url: string;
    connections?: number;
    pipelining?: number;
    amount?: number;
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    requests?: {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest;
    }[];
  };
  type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  };
  type Result = {
    duration: number;
    start: Date;
    finish: Date;
    latency: Histogram;
    requests: Histogram & { total: number; sent: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
  };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
