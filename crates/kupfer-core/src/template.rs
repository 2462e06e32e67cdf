//! Filling the `{{KEY}}` placeholders of kupfer's WGSL templates (`shaders/*.wgsl`).
//!
//! ```
//! use kupfer_core::template::Template;
//! let src = Template::new("var<workgroup> tile: array<{{T}}, {{N}}>;")
//!     .set("T", "f32")
//!     .set("N", 256)
//!     .render();
//! assert_eq!(src, "var<workgroup> tile: array<f32, 256>;");
//! ```
//!
//! Keys are filled in the order they are set, every occurrence at once (a value may itself hold
//! placeholders that a later key fills). Setting a key the text does not hold, or rendering with
//! a `{{...}}` left, is a bug of kupfer (templates and keys are both ours, never a user's): it
//! panics in debug builds, which the unit tests that generate every template variant are, and
//! leaves the text for the shader compiler to refuse in release builds.

use std::fmt::Display;

/// A WGSL template being filled (see the [module documentation](self)).
#[derive(Debug, Clone)]
#[must_use = "a template does nothing until it is rendered"]
pub struct Template {
    text: String,
    /// Keys set that the text did not hold.
    unknown: Vec<String>,
}

impl Template {
    /// A template of `text` (a `shaders/` source or one assembled from several).
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            unknown: Vec::new(),
        }
    }

    /// Replaces every `{{key}}` with `value`.
    pub fn set(mut self, key: &str, value: impl Display) -> Self {
        let placeholder = format!("{{{{{key}}}}}");
        if self.text.contains(&placeholder) {
            self.text = self.text.replace(&placeholder, &value.to_string());
        } else {
            self.unknown.push(key.to_string());
        }
        self
    }

    /// Replaces every `{{key}}` with `value` where the text holds it: for a key that only some
    /// of the variants filled by one call site hold (the unfilled check still applies).
    pub fn set_if_held(mut self, key: &str, value: impl Display) -> Self {
        self.text = self
            .text
            .replace(&format!("{{{{{key}}}}}"), &value.to_string());
        self
    }

    /// Fills every placeholder from a list of values shared by several templates: the
    /// entries are applied last first, so a later entry for a key wins (kernel-specific values
    /// after the common ones). Keys the template does not hold are allowed here, since the list
    /// serves templates that use different parts of it; a placeholder no entry fills is still
    /// caught by [`render`](Self::render).
    pub fn set_shared(mut self, values: &[(&str, String)]) -> Self {
        for (key, value) in values.iter().rev() {
            self.text = self.text.replace(&format!("{{{{{key}}}}}"), value);
        }
        self
    }

    /// What is wrong with the template so far: keys set that it did not hold, and the
    /// placeholders left unfilled.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .unknown
            .iter()
            .map(|k| format!("the template holds no {{{{{k}}}}}"))
            .collect();
        out.extend(
            unfilled(&self.text)
                .into_iter()
                .map(|k| format!("{{{{{k}}}}} is not filled")),
        );
        out
    }

    /// The filled text; panics in debug builds when [`problems`](Self::problems) finds any.
    pub fn render(self) -> String {
        let problems = self.problems();
        debug_assert!(
            problems.is_empty(),
            "WGSL template: {}",
            problems.join("; ")
        );
        self.text
    }
}

impl Template {
    /// The text with some placeholders filled, for a template that is filled further after
    /// being joined with others: only keys set that the text did not hold are checked (they
    /// panic in debug builds).
    pub fn render_part(self) -> String {
        debug_assert!(
            self.unknown.is_empty(),
            "WGSL template: no {{{{{}}}}} to set",
            self.unknown.join("}}, {{")
        );
        self.text
    }
}

/// The keys of the `{{KEY}}` placeholders in `text` (upper-case letters, digits and `_`).
fn unfilled(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(after.len());
        if len > 0 && after[len..].starts_with("}}") {
            out.push(&after[..len]);
        }
        rest = &after[len..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_in_order_and_every_occurrence() {
        let t = Template::new("{{A}} {{B}} {{A}}")
            .set("A", "x{{B}}")
            .set("B", 7);
        assert!(t.problems().is_empty());
        assert_eq!(t.render(), "x7 7 x7");
    }

    #[test]
    fn unknown_and_unfilled_keys_are_problems() {
        let t = Template::new("a {{ONE}} b {{TWO}} c { {x} }")
            .set("ONE", 1)
            .set("TOW", 2);
        assert_eq!(
            t.problems(),
            ["the template holds no {{TOW}}", "{{TWO}} is not filled"]
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "{{X}} is not filled")]
    fn rendering_with_a_placeholder_left_panics_in_debug_builds() {
        let _ = Template::new("{{X}}").render();
    }

    #[test]
    fn shared_values_fill_last_first_and_may_be_unused() {
        let values = [
            ("A", "1".to_string()),
            ("UNUSED", "2".to_string()),
            ("A", "3".to_string()),
        ];
        let t = Template::new("{{A}}").set_shared(&values);
        assert!(t.problems().is_empty());
        assert_eq!(t.render(), "3");
        let t = Template::new("{{A}} {{B}}").set_shared(&values);
        assert_eq!(t.problems(), ["{{B}} is not filled"]);
    }

    #[test]
    fn a_part_keeps_its_other_placeholders() {
        let part = Template::new("{{A}} {{B}}").set("A", 1).render_part();
        assert_eq!(Template::new(part).set("B", 2).render(), "1 2");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "holds no {{Y}}")]
    fn setting_an_unknown_key_panics_in_debug_builds() {
        let _ = Template::new("x").set("Y", 1).render();
    }
}
