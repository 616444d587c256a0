// Diagrams (`![alt](/diagrams/x.svg)`) readable on a phone: each sits in a frame that scrolls
// sideways when the screen is narrower than the picture (custom.css keeps it at a readable
// width), and a tap opens the SVG full size in its own tab, where it can be zoomed.
import type { MarkdownRenderer } from "vitepress";

type ImageRule = NonNullable<MarkdownRenderer["renderer"]["rules"]["image"]>;

export function diagramPlugin(md: MarkdownRenderer): void {
  const image = md.renderer.rules.image as ImageRule;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const html = image(tokens, idx, options, env, self);
    const src = tokens[idx]!.attrGet("src") ?? "";
    if (!src.startsWith("/diagrams/")) return html;
    return (
      `<a class="diagram" href="${src}" target="_blank" rel="noopener" title="Open the diagram full size">` +
      `${html}</a><span class="diagram-hint">Tap the diagram to open it full size.</span>`
    );
  };
}
