/* The preview page: each card in a frame of its own, as in Anki's card view.
 * Showing the answer loads the back as a new page, as AnkiDroid does, so the
 * card's own script carries the choice over; nothing is loaded from elsewhere. */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("pv-data").textContent);
  var night = document.getElementById("pv-night");
  var phone = document.getElementById("pv-phone");

  // The card's page, with its media (the card script) inline.
  function cardPage(lang, body) {
    var shell = data.shells[lang];
    var text = shell[0] + body + shell[1];
    Object.keys(data.media).forEach(function (name) {
      text = text.split('src="' + name + '"').join('src="' + data.media[name] + '"');
    });
    return text;
  }

  function setNight(doc) {
    if (doc && doc.body) {
      doc.body.classList.toggle("nightMode", night.checked);
      doc.body.classList.toggle("night_mode", night.checked);
    }
  }

  // A frame as tall as its card, whatever the width.
  function fit(frame) {
    var doc = frame.contentDocument;
    if (!doc || !doc.body) {
      return;
    }
    var style = doc.defaultView.getComputedStyle(doc.body);
    var height = doc.body.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
    frame.style.height = Math.ceil(height) + 2 + "px";
  }

  function loaded(article, frame) {
    var doc = frame.contentDocument;
    setNight(doc);
    // Space and Enter flip the card, as in Anki.
    doc.addEventListener("keydown", function (event) {
      if (event.key === " " || event.key === "Enter") {
        event.preventDefault();
        show(article, article.getAttribute("data-side") === "front" ? "back" : "front");
      }
    });
    fit(frame);
    if (window.ResizeObserver) {
      new ResizeObserver(function () { fit(frame); }).observe(doc.body);
    }
    article.setAttribute("data-ready", "true");
  }

  function show(article, side) {
    var card = data.cards[Number(article.getAttribute("data-card"))];
    var frame = article.querySelector("iframe");
    if (!frame) {
      frame = document.createElement("iframe");
      frame.title = article.getAttribute("data-question");
      frame.addEventListener("load", function () { loaded(article, frame); });
      article.querySelector(".pv-frame").appendChild(frame);
    }
    article.setAttribute("data-side", side);
    article.removeAttribute("data-ready");
    article.querySelector(".pv-flip").hidden = side === "back";
    article.querySelector(".pv-again").hidden = side === "front";
    frame.srcdoc = cardPage(card[0], side === "front" ? card[1] : card[2]);
  }

  var articles = [].slice.call(document.querySelectorAll(".pv-card"));
  articles.forEach(function (article) {
    article.querySelector(".pv-flip").addEventListener("click", function () { show(article, "back"); });
    article.querySelector(".pv-again").addEventListener("click", function () { show(article, "front"); });
  });

  // Frames are made when they come near the screen: a bank can have thousands of cards.
  function showFront(article) {
    if (!article.querySelector("iframe")) {
      show(article, "front");
    }
  }
  if (window.IntersectionObserver) {
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) {
          observer.unobserve(entry.target);
          showFront(entry.target);
        }
      });
    }, { rootMargin: "800px 0px" });
    articles.forEach(function (article) { observer.observe(article); });
  } else {
    articles.forEach(showFront);
  }

  night.checked = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)").matches : false;
  function applyNight() {
    document.documentElement.classList.toggle("pv-dark", night.checked);
    [].forEach.call(document.querySelectorAll(".pv-frame iframe"), function (frame) {
      setNight(frame.contentDocument);
    });
  }
  night.addEventListener("change", applyNight);
  applyNight();
  phone.addEventListener("change", function () {
    document.body.classList.toggle("pv-phone", phone.checked);
  });
})();
