// The only way the pages talk to the server: JSON over the REST API, session auth + CSRF token.
import { toast } from "./ui.js";

/** While the database is away (503 unavailable, with retry_after), a request is sent again by
 * itself, for up to about this long: an action names its ply, so sending it twice is safe. */
const UNAVAILABLE_PATIENCE_MS = 60000;

export class ApiError extends Error {
  constructor(status, body) {
    const data = body && typeof body === "object" ? body : {};
    super(data.message || data.detail || interpolate(gettext("Request failed (%(status)s)"), { status }, true));
    this.name = "ApiError";
    this.status = status;
    this.code = data.code || `http_${status}`;
    this.body = data;
  }
}

let serverOffsetMs = 0;

/** Milliseconds to add to Date.now() to get the server's clock (from the Date header). */
export function serverNow() {
  return Date.now() + serverOffsetMs;
}

function noteServerTime(response) {
  const header = response.headers.get("Date");
  const t = header ? Date.parse(header) : NaN;
  if (!Number.isNaN(t)) {
    // The header has a resolution of one second; keep the estimate that is least behind.
    const offset = t - Date.now();
    if (Math.abs(offset - serverOffsetMs) > 1500 || offset > serverOffsetMs) serverOffsetMs = offset;
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

export function csrfToken() {
  // The cookie is rotated on log-in, so prefer it over the token rendered in the page.
  return cookie("csrftoken") || document.querySelector('meta[name="csrf-token"]')?.content || "";
}

export async function request(method, url, body) {
  const started = Date.now();
  for (;;) {
    try {
      return await requestOnce(method, url, body);
    } catch (err) {
      const wait = Math.min(30, Math.max(1, Number(err.body?.retry_after) || 5)) * 1000;
      if (err.status !== 503 || err.code !== "unavailable" || Date.now() - started + wait > UNAVAILABLE_PATIENCE_MS) throw err;
      toast(gettext("The server is briefly unavailable. Trying again…"), "info", wait);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

async function requestOnce(method, url, body) {
  const headers = { Accept: "application/json" };
  const options = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(url, options);
  } catch (err) {
    throw new ApiError(0, { code: "network", message: gettext("The server cannot be reached. Check your connection.") });
  }
  noteServerTime(response);
  let data = null;
  if (response.status !== 204) {
    const text = await response.text();
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
  }
  if (!response.ok) throw new ApiError(response.status, data || { message: response.statusText });
  return data;
}

export const api = {
  get: (url) => request("GET", url),
  post: (url, body = {}) => request("POST", url, body),
};
