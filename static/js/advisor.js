/* The advisor form's task rows: add and remove without a round trip, and show only the fields
 * that apply to each task's kind. Without JavaScript the same buttons submit the form ("add",
 * "remove") and the server edits the rows, so nothing here is needed for the form to work.
 */
(function () {
  "use strict";

  var FIELD = /^(id_)?t(\d+|__index__)-/;

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#task-rows [data-task-row]"));
  }

  function showFieldsFor(row) {
    var kind = row.querySelector("select[name$='-kind']");
    if (!kind) {
      return;
    }
    row.querySelectorAll("fieldset[data-kinds]").forEach(function (group) {
      var applies = group.dataset.kinds.split(" ").indexOf(kind.value) !== -1;
      group.hidden = !applies && !group.querySelector(".has-error");
    });
  }

  function renumber() {
    var all = rows();
    all.forEach(function (row, index) {
      row.querySelectorAll("[name], [id], label[for]").forEach(function (el) {
        ["name", "id", "for"].forEach(function (attr) {
          var value = el.getAttribute(attr);
          if (value && FIELD.test(value)) {
            el.setAttribute(attr, value.replace(FIELD, function (_, id) {
              return (id || "") + "t" + index + "-";
            }));
          }
        });
      });
      row.querySelectorAll("[aria-describedby]").forEach(function (el) {
        el.setAttribute("aria-describedby", el.getAttribute("aria-describedby").replace(/id_t(\d+|__index__)-/g, "id_t" + index + "-"));
      });
      row.querySelectorAll("[data-number]").forEach(function (el) {
        el.textContent = String(index + 1);
      });
      var remove = row.querySelector("[data-remove-task]");
      remove.value = String(index);
      remove.parentElement.hidden = all.length === 1;
    });
    document.querySelector("[data-task-count]").value = String(all.length);
  }

  function addRow() {
    var template = document.getElementById("task-template");
    var fragment = template.content.cloneNode(true);
    var row = fragment.querySelector("[data-task-row]");
    document.getElementById("task-rows").appendChild(fragment);
    renumber();
    showFieldsFor(row);
    row.querySelector("input, select").focus();
  }

  function removeRow(button) {
    var row = button.closest("[data-task-row]");
    var next = row.nextElementSibling || row.previousElementSibling;
    row.remove();
    renumber();
    if (next) {
      next.querySelector("input, select").focus();
    }
  }

  // Land on the answer: the results' heading after Advise, Share or a link to results, the
  // summary of the form's errors when it has some (the page marks which with data-land).
  function land() {
    var target = document.querySelector("[data-land]");
    if (target) {
      target.focus();  // and scrolls it into view
    }
  }

  function init() {
    land();
    var form = document.getElementById("scenario-form");
    if (!form) {
      return;
    }
    rows().forEach(showFieldsFor);
    form.addEventListener("click", function (event) {
      var add = event.target.closest("[data-add-task]");
      var remove = event.target.closest("[data-remove-task]");
      if (add) {
        event.preventDefault();
        addRow();
      } else if (remove) {
        event.preventDefault();
        removeRow(remove);
      }
    });
    form.addEventListener("change", function (event) {
      if (event.target.matches("select[name$='-kind']")) {
        showFieldsFor(event.target.closest("[data-task-row]"));
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
