# Settings names in a list, but nothing here sends them to the API: asset compression and a
# user's preferences on another service.
COMPRESSORS = %w[brotli gzip].freeze
OPTIONS = %w[minify mobile_redirect].freeze

def save(user_id, name)
  post("https://example.com/api/users/#{user_id}/settings/#{name}")
end
