/* Any model by name: a search box above each task's model list. Typing filters the <select>'s
 * options (and hides a family with none left) by name or id; Enter or a single match chooses
 * the first one shown. Without JavaScript the box stays hidden and the grouped <select> works as
 * it is, so nothing here is needed for the form to work.
 */
(function () {
  "use strict";

  function normal(text) {
    return text.toLowerCase().replace(/[\s_\-.\/]+/g, "");
  }

  function selectOf(box) {
    var field = box.closest(".field");
    return field ? field.querySelector("select") : null;
  }

  function filter(box) {
    var select = selectOf(box);
    if (!select) {
      return;
    }
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean).map(normal);
    var first = null;
    select.querySelectorAll("optgroup").forEach(function (group) {
      var shown = 0;
      group.querySelectorAll("option").forEach(function (option) {
        var text = normal(group.label + " " + option.textContent + " " + option.value);
        var match = words.every(function (word) { return text.indexOf(word) !== -1; });
        option.hidden = !match;
        if (match) {
          shown += 1;
          first = first || option;
        }
      });
      group.hidden = shown === 0;
    });
    return first;
  }

  function choose(box, option) {
    var select = selectOf(box);
    if (select && option && select.value !== option.value) {
      select.value = option.value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  function reveal(root) {
    root.querySelectorAll("input[data-model-search][hidden]").forEach(function (box) {
      box.hidden = false;
    });
  }

  document.addEventListener("input", function (event) {
    var box = event.target;
    if (box.matches && box.matches("input[data-model-search]")) {
      var first = filter(box);
      var select = selectOf(box);
      var current = select ? select.options[select.selectedIndex] : null;
      if (first && (!current || current.hidden || !current.value)) {
        choose(box, first);
      }
    }
  });

  document.addEventListener("keydown", function (event) {
    var box = event.target;
    if (event.key === "Enter" && box.matches && box.matches("input[data-model-search]")) {
      event.preventDefault();  // Enter picks the first match instead of submitting the form
      choose(box, filter(box));
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    reveal(document);
    var rows = document.getElementById("task-rows");
    if (rows && "MutationObserver" in window) {
      new MutationObserver(function () { reveal(rows); }).observe(rows, { childList: true });
    }
  });
})();
