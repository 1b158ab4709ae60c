import { h, replaceChildren } from "../dom.js";
import { storeToken } from "../session.js";

/**
 * The sign-in form. The token is checked against `GET /v1/me` before it is kept (in this tab's
 * session storage only).
 * @param {HTMLElement} main
 * @param {{ message?: string, onToken: (token: string) => Promise<void> }} options
 */
export function renderSignIn(main, { message, onToken }) {
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "token",
      name: "token",
      type: "password",
      autocomplete: "off",
      required: true,
      "aria-describedby": "token-hint token-error",
    })
  );
  const error = h("p", { id: "token-error", class: "field-error", role: "alert" });
  const button = h("button", { type: "submit", class: "primary", text: "Sign in" });
  const form = h(
    "form",
    { class: "sign-in", novalidate: true },
    h("h1", { text: "Sign in to review approvals" }),
    message ? h("p", { class: "notice", text: message }) : null,
    h("label", { for: "token", text: "API token" }),
    input,
    h("p", {
      id: "token-hint",
      class: "field-hint",
      text: "Kept in this browser tab only, and sent to this server only.",
    }),
    error,
    button,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === "") {
      error.textContent = "Enter a token.";
      input.focus();
      return;
    }
    button.toggleAttribute("disabled", true);
    error.textContent = "";
    try {
      await onTokenChecked(token, onToken);
    } catch (refusal) {
      error.textContent =
        refusal?.status === 401
          ? "This token is not accepted."
          : `Could not sign in: ${refusal?.message ?? refusal}`;
      input.focus();
    } finally {
      button.removeAttribute("disabled");
    }
  });
  replaceChildren(main, form);
  input.focus();
}

async function onTokenChecked(token, onToken) {
  await onToken(token);
  storeToken(token);
}
