//! The conversion's lookup tables: multimedia formats and media types,
//! language names and BCP 47 tags, and the URI an extension tag made from a
//! 5.5.1 tag is declared with.

/// 5.5.1 multimedia formats (`FILE.FORM`, the file's extension) and their
/// media types (IANA), in the order the reverse lookup prefers.
const MEDIA: &[(&str, &str)] = &[
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("png", "image/png"),
    ("bmp", "image/bmp"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    ("pcx", "image/vnd.zbrush.pcx"),
    ("svg", "image/svg+xml"),
    ("webp", "image/webp"),
    ("heic", "image/heic"),
    ("wav", "audio/wav"),
    ("mp3", "audio/mpeg"),
    ("ogg", "audio/ogg"),
    ("mp4", "video/mp4"),
    ("mpg", "video/mpeg"),
    ("mpeg", "video/mpeg"),
    ("avi", "video/x-msvideo"),
    ("mov", "video/quicktime"),
    ("pdf", "application/pdf"),
    ("rtf", "application/rtf"),
    ("doc", "application/msword"),
    ("ole", "application/x-ole-storage"),
    ("txt", "text/plain"),
    ("htm", "text/html"),
    ("html", "text/html"),
];

/// The media type of a 5.5.1 multimedia format: from the table, a payload
/// that already is one (holds a `/`) as it is, any other word as
/// `application/x-<word>` (which [`format_of`] reads back). `None` for an
/// empty payload.
pub(super) fn media_type(form: &str) -> Option<String> {
    let f = form.trim().trim_start_matches('.').to_ascii_lowercase();
    if f.is_empty() {
        return None;
    }
    if f.contains('/') {
        return Some(f);
    }
    Some(match MEDIA.iter().find(|(ext, _)| *ext == f) {
        Some((_, ty)) => (*ty).to_string(),
        None => {
            let word: String = f
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c) {
                        c
                    } else {
                        '-'
                    }
                })
                .collect();
            format!("application/x-{word}")
        }
    })
}

/// The 5.5.1 multimedia format of a media type: the table's first format
/// for it, `application/x-<word>` as the word; `None` for another type.
pub(super) fn format_of(media_type: &str) -> Option<String> {
    let t = media_type.trim().to_ascii_lowercase();
    if let Some((ext, _)) = MEDIA.iter().find(|(_, ty)| *ty == t) {
        return Some((*ext).to_string());
    }
    t.strip_prefix("application/x-")
        .filter(|w| !w.is_empty() && *w != "ole-storage")
        .map(str::to_string)
}

/// The BCP 47 tag of a 5.5.1 language name (any case); a payload that is
/// already one of the table's tags as it is.
pub(super) fn language_tag(name: &str) -> Option<&'static str> {
    let n = name.trim();
    crate::value::language_tag(n).or_else(|| {
        crate::value::languages()
            .find(|(_, t)| t.eq_ignore_ascii_case(n))
            .map(|(_, t)| t)
    })
}

/// The 5.5.1 language name of a BCP 47 tag (the table's first name for it).
pub(super) use crate::value::language_name;

/// The URI a `_TAG` extension made from the 5.5.1 structure `TAG` is
/// declared with in `HEAD.SCHMA`: [`TERMS_551`] and the tag.
pub(super) fn extension_uri(tag: &str) -> String {
    format!("{TERMS_551}{tag}")
}

/// The prefix of the URIs the conversion to 7.0 declares its `_TAG`
/// extensions with (the 5.5.1 tag follows it); a 7.0 file's `SCHMA.TAG`
/// under it turns its extension back into the 5.5.1 tag.
pub const TERMS_551: &str = "https://gedcom.io/terms/v5.5.1/";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_go_both_ways() {
        assert_eq!(media_type("JPG").as_deref(), Some("image/jpeg"));
        assert_eq!(media_type(" image/png ").as_deref(), Some("image/png"));
        assert_eq!(media_type("xyz").as_deref(), Some("application/x-xyz"));
        assert_eq!(media_type(""), None);
        for (ext, _) in MEDIA {
            let back = format_of(&media_type(ext).unwrap()).unwrap();
            assert_eq!(media_type(&back), media_type(ext), "{ext}");
        }
        assert_eq!(format_of("application/x-xyz").as_deref(), Some("xyz"));
        assert_eq!(format_of("model/obj"), None);
    }

    #[test]
    fn languages_go_both_ways() {
        assert_eq!(language_tag("english"), Some("en"));
        assert_eq!(language_tag("de"), Some("de"));
        assert_eq!(language_tag("Klingon"), None);
        // The tags ELF's table marks with a `*`, without it (and back).
        assert_eq!(language_tag("Cantonese"), Some("yue"));
        assert_eq!(language_tag("catalan_spn"), Some("ca-ES"));
        assert_eq!(language_name("sh"), Some("Serbo_Croa"));
        for (name, tag) in crate::value::languages() {
            assert_eq!(
                language_tag(language_name(tag).unwrap()),
                Some(tag),
                "{name}"
            );
        }
    }
}
