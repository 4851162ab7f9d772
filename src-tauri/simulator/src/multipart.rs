//! Reading a `multipart/form-data` body (RFC 7578), as far as a file upload needs: each
//! part's field name, file name and bytes. Owns the parsing only; what the parts mean is
//! the batch routes' business.

/// One field of a form.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub bytes: Vec<u8>,
}

/// The parts of `body`, sent with the header `Content-Type: content_type`.
pub fn parse(content_type: &str, body: &[u8]) -> Result<Vec<Part>, String> {
    let boundary =
        boundary(content_type).ok_or("the upload is not multipart/form-data with a boundary")?;
    let delimiter = format!("--{boundary}").into_bytes();
    let mut at = find(body, &delimiter, 0).ok_or("the upload holds no part")?;
    let mut parts = Vec::new();
    loop {
        at += delimiter.len();
        if body[at..].starts_with(b"--") {
            return Ok(parts);
        }
        at += crlf_len(&body[at..]);
        let head_end = find(body, b"\r\n\r\n", at).ok_or("a part has no end of its headers")?;
        let head = String::from_utf8_lossy(&body[at..head_end]).into_owned();
        let content_start = head_end + 4;
        let mut closing = b"\r\n".to_vec();
        closing.extend_from_slice(&delimiter);
        let content_end =
            find(body, &closing, content_start).ok_or("a part runs past the end of the upload")?;
        let (name, filename) = disposition(&head).ok_or("a part has no field name")?;
        parts.push(Part {
            name,
            filename,
            bytes: body[content_start..content_end].to_vec(),
        });
        at = content_end + 2;
    }
}

fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (name, value) = p.trim().split_once('=')?;
        (name.trim().eq_ignore_ascii_case("boundary"))
            .then(|| value.trim().trim_matches('"').to_string())
            .filter(|b| !b.is_empty())
    })
}

/// The `name` and `filename` of a part's Content-Disposition header.
fn disposition(head: &str) -> Option<(String, Option<String>)> {
    let line = head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))?;
    let param = |key: &str| {
        line.split(';').find_map(|p| {
            let (name, value) = p.trim().split_once('=')?;
            (name.trim() == key).then(|| value.trim().trim_matches('"').to_string())
        })
    };
    Some((param("name")?, param("filename")))
}

fn crlf_len(rest: &[u8]) -> usize {
    if rest.starts_with(b"\r\n") {
        2
    } else {
        usize::from(rest.starts_with(b"\n"))
    }
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_files_are_read_with_their_bytes() {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"requests.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n{\"a\":1}\n{\"a\":2}\n\r\n--XyZ--\r\n";
        let parts = parse("multipart/form-data; boundary=XyZ", body).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(
            (parts[0].name.as_str(), parts[0].bytes.as_slice()),
            ("purpose", &b"batch"[..])
        );
        assert_eq!(parts[1].filename.as_deref(), Some("requests.jsonl"));
        assert_eq!(parts[1].bytes, b"{\"a\":1}\n{\"a\":2}\n");
    }

    #[test]
    fn a_body_that_is_not_multipart_is_refused() {
        assert!(parse("application/json", b"{}").is_err());
        assert!(parse("multipart/form-data; boundary=B", b"--B\r\nno end").is_err());
    }
}
