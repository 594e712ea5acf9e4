"""The 18 topics of PERSPECTRUM's topic-tagging step (`topic.json`). Pure data."""

TOPICS: dict[str, str] = {
    "culture": "Culture",
    "digital_freedom": "Digital freedom",
    "economy": "Economy",
    "education": "Education",
    "environment": "Environment",
    "ethics": "Ethics",
    "freedom_of_speech": "Freedom of speech",
    "gender": "Gender",
    "health_and_medicine": "Health and medicine",
    "human_rights": "Human rights",
    "law": "Law",
    "philosophy": "Philosophy",
    "politics": "Politics",
    "religion": "Religion",
    "science_and_technology": "Science and technology",
    "society": "Society",
    "sports_and_entertainments": "Sports and entertainments",
    "world_international": "World and international",
}
