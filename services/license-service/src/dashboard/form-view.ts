/**
 * A record's form: labelled fields, each error next to its field (linked with
 * aria-describedby), the anti-forgery token, one submit button.
 */
import type { FieldErrors } from '../records/form-input';
import { html, plainText, type Html } from './html';
import { csrfInput } from './layout';

export interface FieldSpec {
  name: string;
  label: string;
  type?:
    | 'text'
    | 'email'
    | 'number'
    | 'date'
    | 'checkbox'
    | 'textarea'
    | 'select'
    | 'password'
    | 'checkboxes';
  options?: Array<{ value: string; label: string }>;
  required?: boolean;
  hint?: string;
}

export type FormValues = Record<string, unknown>;

const valueText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.join(',');
  return plainText(value);
};

function fieldView(spec: FieldSpec, values: FormValues, errors: FieldErrors): Html {
  const id = `f-${spec.name}`;
  const error = errors[spec.name];
  const described = [spec.hint ? `${id}-hint` : '', error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const aria = html`${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  const hint = spec.hint ? html`<span class="hint" id="${id}-hint">${spec.hint}</span>` : '';
  const message = error ? html`<span class="field-error" id="${id}-error">${error}</span>` : '';
  const value = values[spec.name];
  const required = spec.required ? html` required` : '';
  switch (spec.type) {
    case 'checkbox':
      return html`<div class="field checkbox">
        <input
          id="${id}"
          name="${spec.name}"
          type="checkbox"
          value="on"
          ${value === true || value === 'on' ? html` checked` : ''}${aria}
        />
        <label for="${id}">${spec.label}</label>${hint}${message}
      </div>`;
    case 'checkboxes': {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      return html`<fieldset class="field">
        <legend>${spec.label}</legend>
        ${(spec.options ?? []).map(
          (option, i) =>
            html`<div class="checkbox">
              <input
                id="${id}-${i}"
                name="${spec.name}"
                type="checkbox"
                value="${option.value}"
                ${chosen.includes(option.value) ? html` checked` : ''}
              />
              <label for="${id}-${i}">${option.label} <code>${option.value}</code></label>
            </div>`,
        )}${message}
      </fieldset>`;
    }
    case 'textarea':
      return html`<div class="field">
        <label for="${id}">${spec.label}</label
        ><textarea id="${id}" name="${spec.name}" rows="3" ${required}${aria}>
${valueText(value)}</textarea
        >${hint}${message}
      </div>`;
    case 'select':
      return html`<div class="field">
        <label for="${id}">${spec.label}</label
        ><select id="${id}" name="${spec.name}" ${required}${aria}>
          <option value="">Choose…</option>
          ${(spec.options ?? []).map((o) => html`<option value="${o.value}" ${valueText(value) === o.value ? html` selected` : ''}>${o.label}</option>`)}</select
        >${hint}${message}
      </div>`;
    default:
      return html`<div class="field">
        <label for="${id}">${spec.label}</label
        ><input
          id="${id}"
          name="${spec.name}"
          type="${spec.type ?? 'text'}"
          ${
            spec.type === 'password'
              ? html` autocomplete="new-password"`
              : html` value="${valueText(value)}"`
          }${required}${aria}
        />${hint}${message}
      </div>`;
  }
}

export function formView(options: {
  action: string;
  csrf: string;
  fields: FieldSpec[];
  values: FormValues;
  errors: FieldErrors;
  submit: string;
}): Html {
  const count = Object.keys(options.errors).length;
  return html`<form method="post" action="${options.action}" class="card" novalidate>
    ${csrfInput(options.csrf)}
    ${count ? html`<p class="error-text" role="alert">Please correct the ${count === 1 ? 'field' : `${count} fields`} marked below.</p>` : ''}
    ${options.fields.map((f) => fieldView(f, options.values, options.errors))}
    <p><button type="submit">${options.submit}</button></p>
  </form>`;
}

export function deleteForm(action: string, csrf: string, label: string): Html {
  return html`<form method="post" action="${action}" class="inline">
    ${csrfInput(csrf)}<button type="submit" class="danger">${label}</button>
  </form>`;
}
