/* Multiple-choice cards: tap an option (or press 1-6, or Tab to it and press
 * Space or Enter) on the front; the back names the correct option at its top,
 * marks it in place, and the chosen one as right or wrong. A question
 * with several correct options (its Question field starts with an .ab-several
 * element; data-answer holds "A C") lets the student tick several: the back
 * marks each as right, wrongly chosen or missed, and the whole answer is right
 * only when exactly the correct ones were ticked.
 *
 * Without this script the card still works: the back's stylesheet marks the
 * correct options from data-answer.
 *
 * Feedback on an option comes in the back's explanation (data-letter names the
 * option), never in the front, which Anki's Browse columns show: on the back it
 * moves beside its option.
 *
 * Anki desktop keeps one page and swaps the card's HTML, so globals survive
 * the flip; AnkiDroid loads a new page for each side, so only storage does.
 * The review's state (display order and choice) therefore goes to every store
 * available: a global, sessionStorage and window.name. It is keyed by the note
 * type and the question id, and each showing of a front starts a new review,
 * so a choice never reaches another card or a later review.
 *
 * Written in ES5 for the oldest webviews Anki clients still run on.
 */
(function () {
  "use strict";

  var KEY = "ankibuild-review";
  var NAME_PREFIX = "ankibuild-review:";

  var memory = {
    read: function () { return window.ankibuildReview || null; },
    write: function (text) { window.ankibuildReview = text; }
  };
  var session = {
    read: function () { return window.sessionStorage.getItem(KEY); },
    write: function (text) { window.sessionStorage.setItem(KEY, text); }
  };
  // window.name survives a reload of the same tab; leave it alone if another
  // script uses it.
  var windowName = {
    read: function () {
      var name = window.name || "";
      return name.indexOf(NAME_PREFIX) === 0 ? name.slice(NAME_PREFIX.length) : null;
    },
    write: function (text) {
      if (!window.name || window.name.indexOf(NAME_PREFIX) === 0) {
        window.name = NAME_PREFIX + text;
      }
    }
  };
  var STORES = [memory, session, windowName];

  function save(review) {
    var text = JSON.stringify(review);
    for (var i = 0; i < STORES.length; i++) {
      try {
        STORES[i].write(text);
      } catch (blocked) {
        // Storage can be disabled or refused (a SecurityError): the other stores remain.
      }
    }
  }

  function load(key) {
    for (var i = 0; i < STORES.length; i++) {
      try {
        var review = JSON.parse(STORES[i].read() || "null");
        if (review && review.key === key) {
          return review;
        }
      } catch (unreadable) {
        // Refused or not ours: try the next store.
      }
    }
    return null;
  }

  // A random order in which pinned letters ("None of the above") keep their places.
  function shuffled(items, pinned) {
    var free = [];
    for (var i = 0; i < items.length; i++) {
      if (!pinned[items[i]]) {
        free.push(items[i]);
      }
    }
    for (var j = free.length - 1; j > 0; j--) {
      var k = Math.floor(Math.random() * (j + 1));
      var swap = free[j];
      free[j] = free[k];
      free[k] = swap;
    }
    var result = [];
    for (var n = 0; n < items.length; n++) {
      result.push(pinned[items[n]] ? items[n] : free.shift());
    }
    return result;
  }

  function sameLetters(order, letters) {
    return Array.isArray(order) && order.length === letters.length &&
      order.slice().sort().join() === letters.slice().sort().join();
  }

  // The question's own setting (an element at the start of its field) over the bank's.
  function shuffles(quiz) {
    if (quiz.querySelector(".ab-question .ab-shuffle")) {
      return true;
    }
    return !quiz.querySelector(".ab-question .ab-in-order") && quiz.getAttribute("data-shuffle") === "true";
  }

  function Card(quiz) {
    this.quiz = quiz;
    this.question = quiz.querySelector(".ab-question");
    this.several = !!quiz.querySelector(".ab-question .ab-several");
    this.list = quiz.querySelector(".ab-options");
    this.key = quiz.getAttribute("data-type") + "\u001f" + quiz.getAttribute("data-id");
    this.shown = (quiz.getAttribute("data-letters") || "").split(" ");
    this.options = {};
    this.pinned = {};
    this.letters = [];
    var items = this.list.querySelectorAll(".ab-option");
    for (var i = 0; i < items.length; i++) {
      var letter = items[i].getAttribute("data-letter");
      this.options[letter] = items[i];
      this.pinned[letter] = !!items[i].querySelector(".ab-pin");
      this.letters.push(letter);
    }
  }

  // Put the options in the review's order; the letters shown follow the
  // position, so the first option is always A (or its language's first letter).
  Card.prototype.arrange = function (order) {
    for (var i = 0; i < order.length; i++) {
      var option = this.options[order[i]];
      this.list.appendChild(option);
      option.querySelector(".ab-letter").textContent = this.shown[i] || String(i + 1);
    }
    this.order = order;
  };

  Card.prototype.select = function (letters) {
    for (var i = 0; i < this.letters.length; i++) {
      var option = this.options[this.letters[i]];
      var chosen = letters.indexOf(this.letters[i]) >= 0;
      option.classList.toggle("ab-selected", chosen);
      option.setAttribute("aria-checked", chosen ? "true" : "false");
    }
  };

  Card.prototype.front = function () {
    var order = shuffles(this.quiz) ? shuffled(this.letters, this.pinned) : this.letters;
    var review = { key: this.key, order: order, choice: [] };
    var card = this;
    save(review);
    this.arrange(order);
    this.quiz.classList.add("ab-js");
    this.quiz.classList.toggle("ab-ticks", this.several);
    this.controls();
    this.select([]);
    // One option, or (several correct) a tick more or less.
    function choose(letter) {
      var at = review.choice.indexOf(letter);
      if (!card.several) {
        review.choice = [letter];
      } else if (at >= 0) {
        review.choice.splice(at, 1);
      } else {
        review.choice.push(letter);
      }
      save(review);
      card.select(review.choice);
    }
    this.list.addEventListener("click", function (event) {
      var letter = card.letterAt(event.target);
      if (letter) {
        choose(letter);
      }
    });
    // Space and Enter choose the focused option, as they press a native control.
    this.list.addEventListener("keydown", function (event) {
      var letter = card.letterAt(event.target);
      if (letter && (event.key === " " || event.key === "Enter" || event.key === "Spacebar")) {
        event.preventDefault();
        event.stopPropagation();
        choose(letter);
      }
    });
    window.ankibuildKey = function (position) {
      // Anki desktop may have moved on to a card of another kind since.
      if (position < card.order.length && document.body.contains(card.list)) {
        choose(card.order[position]);
        return true;
      }
      return false;
    };
  };

  // The option an event happened in, by its letter; null outside every option.
  Card.prototype.letterAt = function (node) {
    while (node && node !== this.list && !(node.getAttribute && node.getAttribute("data-letter"))) {
      node = node.parentNode;
    }
    return node && node !== this.list ? node.getAttribute("data-letter") : null;
  };

  // Options as controls: reached by Tab, named by the question as a group, and
  // the keys said where there is a keyboard (the stylesheet hides it on phones).
  Card.prototype.controls = function () {
    this.question.id = "ab-question";
    this.list.setAttribute("role", this.several ? "group" : "radiogroup");
    this.list.setAttribute("aria-labelledby", "ab-question");
    for (var i = 0; i < this.letters.length; i++) {
      var option = this.options[this.letters[i]];
      option.setAttribute("role", this.several ? "checkbox" : "radio");
      option.setAttribute("tabindex", "0");
    }
    var words = this.quiz.getAttribute("data-keys");
    if (words && !this.quiz.querySelector(".ab-keys")) {
      var hint = document.createElement("p");
      hint.className = "ab-keys";
      hint.textContent = words;
      this.quiz.appendChild(hint);
    }
  };

  // A card taller than the screen gets compact options, then smaller text, so
  // that every option shows before the student answers (the back keeps the
  // front's layout).
  Card.prototype.fit = function () {
    var screen = window.innerHeight || document.documentElement.clientHeight;
    try {
      // A card in a frame as tall as itself (the preview page): the window's screen counts.
      screen = window.top !== window ? window.top.innerHeight : screen;
    } catch (foreign) {
      // A frame of another origin: its own height is all there is.
    }
    var quiz = this.quiz;
    var list = this.list;
    function fits() {
      return !screen || list.getBoundingClientRect().bottom + window.pageYOffset <= screen;
    }
    quiz.classList.remove("ab-dense", "ab-denser");
    if (!fits()) {
      quiz.classList.add("ab-dense");
    }
    if (!fits()) {
      quiz.classList.add("ab-denser");
    }
  };

  // Feedback from the explanation, beside its option.
  Card.prototype.feedback = function (back) {
    var notes = back.querySelectorAll(".ab-explanation .ab-feedback");
    for (var i = 0; i < notes.length; i++) {
      var option = this.options[notes[i].getAttribute("data-letter")];
      if (option) {
        option.querySelector(".ab-text").appendChild(notes[i]);
      }
    }
  };

  // The correct options named at the top of the back: the letter shown and a
  // short copy of the text, so the answer is read before any scrolling.
  Card.prototype.answerLine = function (back) {
    var place = back.querySelector(".ab-key-options");
    if (!place) {
      return;
    }
    var answer = (back.getAttribute("data-answer") || "").split(" ");
    for (var i = 0; i < this.order.length; i++) {
      if (answer.indexOf(this.order[i]) >= 0) {
        place.appendChild(this.named(this.options[this.order[i]]));
      }
    }
    back.classList.add("ab-keyed");
  };

  Card.prototype.named = function (option) {
    var item = document.createElement("span");
    item.className = "ab-key-option";
    var letter = document.createElement("span");
    letter.className = "ab-key-letter";
    letter.textContent = option.querySelector(".ab-letter").textContent;
    var text = option.querySelector(".ab-text").cloneNode(true);
    text.className = "ab-key-text";
    var extra = text.querySelectorAll(".ab-feedback, .ab-missed-label, [id]");
    for (var i = 0; i < extra.length; i++) {
      if (extra[i].id) {
        extra[i].removeAttribute("id");
      } else {
        extra[i].parentNode.removeChild(extra[i]);
      }
    }
    item.appendChild(letter);
    item.appendChild(text);
    return item;
  };

  Card.prototype.back = function (back) {
    window.ankibuildKey = null; // Anki's own keys rate the card on the back
    this.feedback(back);
    var review = load(this.key);
    if (!review || !sameLetters(review.order, this.letters)) {
      this.order = this.letters;
      this.answerLine(back);
      return; // shown without its front, or edited in between: the stylesheet marks the answer
    }
    this.arrange(review.order);
    this.answerLine(back);
    var chosen = Array.isArray(review.choice) ? review.choice : [];
    if (!chosen.length) {
      return;
    }
    var answer = (back.getAttribute("data-answer") || "").split(" ");
    var right = chosen.length === answer.length;
    for (var i = 0; i < this.letters.length; i++) {
      var letter = this.letters[i];
      var option = this.options[letter];
      var correct = answer.indexOf(letter) >= 0;
      if (chosen.indexOf(letter) >= 0) {
        option.classList.add("ab-chosen", correct ? "ab-right" : "ab-wrong");
        right = right && correct;
      } else if (correct && this.several) {
        this.miss(option, back.getAttribute("data-missed"));
      }
    }
    back.classList.add(right ? "ab-result-right" : "ab-result-wrong");
  };

  // A correct option left unticked: marked, and said in words.
  Card.prototype.miss = function (option, words) {
    var label = document.createElement("span");
    label.className = "ab-missed-label";
    label.textContent = words || "";
    option.classList.add("ab-missed");
    option.querySelector(".ab-text").appendChild(label);
  };

  // 1-6 (top row or keypad, on any layout; with Alt too, since Anki desktop
  // keeps the plain digits for its answer buttons).
  function position(event) {
    var match = /^(?:Digit|Numpad)([1-6])$/.exec(event.code || "") || /^([1-6])$/.exec(event.key || "");
    return match ? Number(match[1]) - 1 : -1;
  }

  function onKey(event) {
    var target = event.target || {};
    if (!window.ankibuildKey || event.ctrlKey || event.metaKey || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) {
      return;
    }
    var index = position(event);
    if (index >= 0 && window.ankibuildKey(index)) {
      event.preventDefault();
    }
  }

  function start() {
    var quiz = document.querySelector(".ab-quiz");
    if (!quiz) {
      return;
    }
    var card = new Card(quiz);
    var back = document.querySelector(".ab-back");
    if (back) {
      card.back(back);
    } else {
      card.front();
    }
    card.fit();
  }

  // The page survives on Anki desktop: listen to keys once per page.
  if (!window.ankibuildKeys) {
    window.ankibuildKeys = true;
    document.addEventListener("keydown", onKey);
  }
  // AnkiDroid runs this while the page is still loading, before the back's part exists.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
