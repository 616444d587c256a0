// A tiny static file server for the built site: 127.0.0.1, a free port, clean URLs like VitePress
// hosting (`/chapters/x` serves `/chapters/x.html`). Just enough for the browser test.
import { createServer, type Server } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".png": "image/png",
  ".txt": "text/plain; charset=utf-8",
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function resolveFile(root: string, urlPath: string): Promise<string | undefined> {
  const clean = normalize(decodeURIComponent(urlPath)).replace(/^(\.\.[/\\])+/, "");
  const base = join(root, clean);
  if (!base.startsWith(root + sep) && base !== root) return undefined;
  for (const candidate of [base, `${base}.html`, join(base, "index.html")]) {
    if (await isFile(candidate)) return candidate;
  }
  return undefined;
}

export async function serveStatic(root: string): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    const urlPath = new URL(request.url ?? "/", "http://localhost").pathname;
    void resolveFile(root, urlPath).then(async (file) => {
      if (file === undefined) {
        response.writeHead(404, { "content-type": TYPES[".html"] });
        response.end(await readFile(join(root, "404.html")).catch(() => "not found"));
        return;
      }
      response.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        // VitePress names every asset by its content hash, so a browser may keep it, as a real
        // host lets it; pages themselves are always fetched again.
        "cache-control": urlPath.startsWith("/assets/")
          ? "public, max-age=31536000, immutable"
          : "no-cache",
      });
      response.end(await readFile(file));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("server has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
