// Taskwire console: drag and drop of cards, live updates, and messages
// for htmx requests that failed. Loaded as a file (the CSP allows no
// inline script); every change still goes through a form that works
// without it.
(function () {
  "use strict";

  // flash shows a message in the page's alert region.
  function flash(text) {
    var region = document.getElementById("flash");
    if (!region) return;
    region.textContent = "";
    var p = document.createElement("p");
    p.className = "message";
    p.textContent = text;
    region.appendChild(p);
  }

  // moveCard submits the card's own move form with the new lane and
  // position, the same request the keyboard's Move button sends.
  function moveCard(card, laneName, position) {
    var form = card.querySelector("form.move");
    if (!form) return;
    form.elements.lane.value = laneName;
    form.elements.position.value = String(position);
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }

  // The drag and drop (drag.js) moves a card as its Move button does.
  if (window.taskwireDrag) taskwireDrag(moveCard);

  // htmx answers that are errors carry the message as text.
  document.addEventListener("htmx:responseError", function (e) {
    flash(e.detail.xhr.responseText || "The change failed. Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    flash("Taskwire could not be reached. Check your connection and try again.");
  });
  document.addEventListener("htmx:afterSwap", function () {
    var region = document.getElementById("flash");
    if (region) region.textContent = "";
  });

  // focusKey names the focused element so that it can be found again in
  // a refreshed part of the page: by its id, or by its card's ref and its
  // tag and name. Null when nothing in particular has the focus.
  function focusKey() {
    var el = document.activeElement;
    if (!el || el === document.body) return null;
    if (el.id) return "#" + CSS.escape(el.id);
    var card = el.closest("[data-ref]");
    if (!card) return null;
    return '[data-ref="' + CSS.escape(card.dataset.ref) + '"] ' + el.tagName.toLowerCase() +
      (el.name ? '[name="' + CSS.escape(el.name) + '"]' : "");
  }

  // refresh reloads the part of the page that shows what changed: the
  // board, or the decisions inbox. Bursts of events make one request. A
  // keyboard user keeps their place: the focus goes back to the same
  // control in the new part.
  var pending = null;
  function refresh(selector) {
    if (!document.querySelector(selector) || pending) return;
    if (document.querySelector(".dragging")) return; // do not pull a card from under the pointer
    pending = setTimeout(function () {
      pending = null;
      if (!window.htmx) return;
      var key = focusKey();
      window.htmx.ajax("GET", window.location.href, { target: selector, select: selector, swap: "outerHTML" }).then(function () {
        var el = key && document.querySelector(key);
        if (el && document.activeElement !== el) el.focus();
      });
    }, 150);
  }

  // Passkeys: a form with data-passkey="create" or "get" asks the
  // console for the ceremony's options (data-options), lets the
  // authenticator answer, and posts the answer with the form's fields.
  // The console answers JSON {location}, or a sentence to show.
  function fromB64url(s) {
    var b = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    var out = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
    return out.buffer;
  }
  function toB64url(buf) {
    var bytes = new Uint8Array(buf), s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function withIds(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: fromB64url(c.id) }); });
  }
  // publicKeyOptions turns the options' JSON into what the browser takes.
  function publicKeyOptions(kind, o) {
    var PKC = window.PublicKeyCredential;
    if (kind === "create" && PKC.parseCreationOptionsFromJSON) return PKC.parseCreationOptionsFromJSON(o);
    if (kind === "get" && PKC.parseRequestOptionsFromJSON) return PKC.parseRequestOptionsFromJSON(o);
    var out = Object.assign({}, o, { challenge: fromB64url(o.challenge) });
    if (kind === "create") {
      out.user = Object.assign({}, o.user, { id: fromB64url(o.user.id) });
      out.excludeCredentials = withIds(o.excludeCredentials);
    } else {
      out.allowCredentials = withIds(o.allowCredentials);
    }
    return out;
  }
  // credentialJSON is the authenticator's answer as the console reads it.
  function credentialJSON(cred) {
    if (cred.toJSON) return cred.toJSON();
    var r = cred.response, resp = { clientDataJSON: toB64url(r.clientDataJSON) };
    if (r.attestationObject) {
      resp.attestationObject = toB64url(r.attestationObject);
      if (r.getTransports) resp.transports = r.getTransports();
    } else {
      resp.authenticatorData = toB64url(r.authenticatorData);
      resp.signature = toB64url(r.signature);
      if (r.userHandle) resp.userHandle = toB64url(r.userHandle);
    }
    return {
      id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response: resp,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      clientExtensionResults: cred.getClientExtensionResults()
    };
  }
  // post sends fields to url as the console's script does (answered as
  // htmx's requests are: failures as a sentence, sign-in as HX-Redirect).
  function post(url, fields) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "HX-Request": "true", "Accept": "application/json" },
      body: new URLSearchParams(fields)
    }).then(function (resp) {
      var to = resp.headers.get("HX-Redirect");
      if (to) { window.location.assign(to); return new Promise(function () {}); }
      if (!resp.ok) return resp.text().then(function (t) { throw new Error(t || "The request failed: reload the page and try again."); });
      return resp.json();
    });
  }
  function passkey(form) {
    var kind = form.dataset.passkey, button = form.querySelector("button[type=submit]");
    var fields = {};
    new FormData(form).forEach(function (v, k) { fields[k] = v; });
    button.disabled = true;
    post(form.dataset.options, { csrf: fields.csrf }).then(function (o) {
      var opts = { publicKey: publicKeyOptions(kind, o.publicKey) };
      return kind === "create" ? navigator.credentials.create(opts) : navigator.credentials.get(opts);
    }).then(function (cred) {
      fields.credential = JSON.stringify(credentialJSON(cred));
      return post(form.action, fields);
    }).then(function (done) {
      window.location.assign(done.location);
    }).catch(function (err) {
      button.disabled = false;
      if (err && (err.name === "NotAllowedError" || err.name === "AbortError")) {
        flash("The passkey request was cancelled or timed out: try again when you are ready.");
      } else if (err && err.name === "InvalidStateError") {
        flash("This authenticator holds a passkey of yours already: use another one, or sign in with it.");
      } else {
        flash((err && err.message) || "The passkey did not work: try again.");
      }
    });
  }
  if (window.PublicKeyCredential && navigator.credentials && window.fetch) {
    document.querySelectorAll("form[data-passkey]").forEach(function (form) {
      form.hidden = false;
      form.addEventListener("submit", function (e) { e.preventDefault(); passkey(form); });
    });
    document.querySelectorAll(".passkey-fallback").forEach(function (p) { p.hidden = true; });
  }
  // Copy buttons (data-copy names the element whose text or value is
  // copied): a token, an invitation link, a client's configuration.
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button[data-copy]");
    if (!button) return;
    var el = document.getElementById(button.dataset.copy);
    if (!el) return;
    var text = el.value !== undefined ? el.value : el.textContent;
    if (!navigator.clipboard) {
      if (el.select) el.select();
      flash("Copying needs a secure connection here: the text is selected, copy it with your keyboard.");
      return;
    }
    navigator.clipboard.writeText(text).then(function () {
      button.dataset.copied = "true";
      flash("Copied.");
    }, function () {
      if (el.select) el.select();
      flash("The browser did not allow copying: the text is selected, copy it with your keyboard.");
    });
  });

  // Live updates: the tenant's events stream, where the page has one.
  var url = document.body.dataset.events;
  if (url && window.EventSource) {
    var source = new EventSource(url);
    source.addEventListener("open", function () { document.body.dataset.live = "connected"; });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) document.body.dataset.live = "off";
      else document.body.dataset.live = "reconnecting";
    });
    source.addEventListener("board", function () { refresh("#board"); });
    source.addEventListener("decisions", function () { refresh("#decision-list"); });
  }
})();
