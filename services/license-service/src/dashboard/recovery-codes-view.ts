/** Recovery codes as they are shown, once: why to keep them, the codes, where to go next. */
import { html, type Html } from './html';

export function recoveryCodesView(options: {
  intro: string;
  codes: string[];
  next: { href: string; label: string };
}): Html {
  return html`<div class="card narrow">
    <p>${options.intro}</p>
    <ul class="codes">
      ${options.codes.map((code) => html`<li><code>${code}</code></li>`)}
    </ul>
    <p><a class="button" href="${options.next.href}">${options.next.label}</a></p>
  </div>`;
}
